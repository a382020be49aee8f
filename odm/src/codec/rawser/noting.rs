//! A whole value written as [`to_vec`](super::to_vec) writes it, noting
//! where each top-level element starts: the snapshot a `Doc` takes when
//! first changed after a load, whose first patch then finds the element
//! of a field written without reading the elements before it
//! (`codec::offsets`).

use serde::ser::{self, Serialize};

use super::compound::Struct;
use super::top::{note_start, written, EachField, Top};
use super::{short, Result, Writer};

/// The bytes of `value` as [`to_vec`](super::to_vec) writes them, and
/// where each top-level element starts, then where their closing NUL is;
/// `None` when the value is no struct (an enum model written otherwise,
/// say), or when `bson` must serialize it.
pub(crate) fn to_vec_noting<T: Serialize + ?Sized>(
    value: &T,
    capacity: usize,
) -> Option<(Vec<u8>, Vec<u32>)> {
    let mut top = Top {
        w: Writer {
            bytes: Vec::with_capacity(capacity + short::CHUNK),
            type_index: 0,
        },
        fields: Noting { starts: Vec::new() },
    };
    value.serialize(&mut top).ok()?;
    let mut starts = top.fields.starts;
    starts.push(u32::try_from(top.w.bytes.len().checked_sub(1)?).ok()?);
    Some((top.w.bytes, starts))
}

/// Where each element written so far starts.
struct Noting {
    starts: Vec<u32>,
}

impl EachField for Noting {
    fn field<T: Serialize + ?Sized>(
        &mut self,
        inner: &mut Struct<'_>,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        let start = written(inner)?;
        ser::SerializeStruct::serialize_field(inner, key, value)?;
        note_start(&mut self.starts, inner, start)
    }
}
