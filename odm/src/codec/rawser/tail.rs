//! The elements of a sequence after its first `n`, written one by one
//! into an array already in place (an append, `rawser::patch`) as
//! elements `n`, `n + 1`, ..., exactly as the array's own serialization
//! writes them, without serde passing over the first `n`.

use serde::Serialize;

use super::compound::Array;
use super::Writer;

/// Where the elements after the first `n` of a sequence go.
pub(crate) struct Elements<'a> {
    array: Array<'a>,
}

impl<'a> Elements<'a> {
    /// The elements written into `w` from index `n` on, with no array
    /// around them.
    pub(super) fn after(w: &'a mut Writer, n: usize) -> Elements<'a> {
        Elements {
            array: Array {
                w,
                start: 0,
                next: n,
            },
        }
    }

    /// Writes the next element; `false` when the fast path gives up on it
    /// (the caller then gives up the patch).
    pub(crate) fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> bool {
        serde::ser::SerializeSeq::serialize_element(&mut self.array, value).is_ok()
    }
}
