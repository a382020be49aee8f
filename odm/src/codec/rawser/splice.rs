//! A document written with some top-level fields copied from an earlier
//! serialization instead of serialized again: the fields a save knows
//! unchanged (`codec::same`). The copied bytes are what the field's value
//! serializes to, so the result is byte for byte what
//! [`to_vec`](super::to_vec) writes.

use serde::ser::{self, Impossible, Serialize};

use super::compound::{Array, Struct};
use super::leaf::give_up_on_non_strings;
use super::top::{note_start, EachField, Top};
use super::{short, tag, GiveUp, Result, Writer};
use crate::codec::same::{bit, Unchanged};
use crate::codec::scan::Walk;

/// Which top-level fields to copy, and from where.
pub(crate) struct Splice<'s> {
    /// The earlier serialization (a whole document).
    pub from: &'s [u8],
    /// The fields' stored names, in declaration order (serde's order).
    pub names: &'static [&'static str],
    /// What is the same as when `from` was written: bit `i` of its
    /// fields, the whole field `names[i]`; each `(i, n)` of its prefixes,
    /// the first `n` elements of the sequence `names[i]`.
    pub unchanged: &'s Unchanged,
}

/// The bytes of `value` as [`to_vec`](super::to_vec) writes them, with the
/// unchanged fields of `splice` copied from `splice.from`; `None` when
/// `bson` must serialize it (see the module docs of `rawser`), or when
/// `splice.from` is not a document.
#[cfg(test)]
pub(crate) fn to_vec<T: Serialize + ?Sized>(
    value: &T,
    capacity: usize,
    splice: &Splice<'_>,
) -> Option<Vec<u8>> {
    to_vec_noting(value, capacity, splice).map(|(bytes, _)| bytes)
}

/// [`to_vec`], and where each top-level element of the bytes starts, then
/// where their closing NUL is (as `codec::offsets` keeps them).
pub(crate) fn to_vec_noting<T: Serialize + ?Sized>(
    value: &T,
    capacity: usize,
    splice: &Splice<'_>,
) -> Option<(Vec<u8>, Vec<u32>)> {
    let mut top = Top {
        w: Writer {
            bytes: Vec::with_capacity(capacity + short::CHUNK),
            type_index: 0,
        },
        fields: Copying {
            names: splice.names,
            unchanged: splice.unchanged,
            next_name: 0,
            from: Walk::new(splice.from).ok()?,
            starts: Vec::with_capacity(splice.names.len() + 1),
        },
    };
    value.serialize(&mut top).ok()?;
    let mut starts = top.fields.starts;
    starts.push(u32::try_from(top.w.bytes.len().checked_sub(1)?).ok()?);
    Some((top.w.bytes, starts))
}

/// What is copied, and where the copying stands.
struct Copying<'s> {
    names: &'static [&'static str],
    unchanged: &'s Unchanged,
    /// Where the next field's name is searched from in `names`.
    next_name: usize,
    /// The earlier document, at the element after the last one copied.
    from: Walk<'s>,
    /// Where each element written so far starts.
    starts: Vec<u32>,
}

impl<'s> Copying<'s> {
    /// What the earlier document gives the element `key`: its bytes
    /// (type, key and value) when the field is unchanged, its array's
    /// value and the number of leading elements unchanged when those are
    /// known; nothing when the field is not known unchanged or the
    /// earlier document does not hold it after the last element copied.
    fn take(&mut self, key: &str) -> Take<'s> {
        // serde writes the fields in declaration order; one that is skipped
        // (`skip_serializing_if`) is passed over.
        let Some(rest) = self.names.get(self.next_name..) else {
            return Take::Nothing;
        };
        let Some(at) = rest.iter().position(|n| *n == key) else {
            return Take::Nothing;
        };
        let i = self.next_name + at;
        self.next_name = i + 1;
        let whole = bit(self.unchanged.fields, i);
        let prefix = match whole {
            true => (0, false),
            false => self.unchanged.prefix_of(i),
        };
        let prefix = Prefix {
            n: prefix.0,
            all: prefix.1,
        };
        if !whole && prefix.n == 0 {
            return Take::Nothing;
        }
        // Usually the next element; one the earlier value wrote and this
        // one skips (or the reverse) is passed over.
        let mut walk = self.from.clone();
        loop {
            let start = walk.at();
            let Ok(Some(elem)) = walk.next_elem() else {
                return Take::Nothing;
            };
            if elem.key != key.as_bytes() {
                continue;
            }
            self.from = walk.clone();
            return match whole {
                true => Take::Whole(walk.since(start)),
                false if elem.is_array() => Take::Prefix(elem.value, prefix),
                false => Take::Nothing,
            };
        }
    }
}

/// See [`Copying::take`].
enum Take<'s> {
    Nothing,
    /// The whole element.
    Whole(&'s [u8]),
    /// An array's value (its length, elements and NUL), and how many of
    /// its leading elements to copy.
    Prefix(&'s [u8], Prefix),
}

/// The first elements of an array, to copy.
#[derive(Clone, Copy)]
pub(super) struct Prefix {
    pub n: usize,
    /// They are all the array holds.
    pub all: bool,
}

impl EachField for Copying<'_> {
    fn field<T: Serialize + ?Sized>(
        &mut self,
        inner: &mut Struct<'_>,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        let Struct::Doc(doc) = &mut *inner else {
            return Err(GiveUp);
        };
        let start = doc.w.bytes.len();
        match self.take(key) {
            Take::Whole(bytes) => doc.w.bytes.extend_from_slice(bytes),
            Take::Prefix(old, prefix) => {
                doc.w.key(key)?;
                value.serialize(Prefixed {
                    w: doc.w,
                    old: Some(old),
                    prefix,
                })?;
            }
            Take::Nothing => ser::SerializeStruct::serialize_field(inner, key, value)?,
        }
        note_start(&mut self.starts, inner, start)
    }
}

/// A sequence whose first `n` elements are copied from `old` (an array's
/// value) instead of serialized: serde still passes them, and they are
/// skipped. With no `old`, they are in the earlier array already (an
/// append in place, `rawser::patch`): only the elements after them are
/// written, as elements `n`, `n + 1`, ..., with no array around them.
/// Anything but a sequence of at least `n` elements gives up (the caller
/// then serializes the whole value).
pub(super) struct Prefixed<'a> {
    pub w: &'a mut Writer,
    pub old: Option<&'a [u8]>,
    pub prefix: Prefix,
}

impl<'a> ser::Serializer for Prefixed<'a> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Skipping<'a>;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Impossible<(), GiveUp>;
    type SerializeStruct = Impossible<(), GiveUp>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Skipping<'a>> {
        let n = self.prefix.n;
        if len.is_some_and(|len| len < n) {
            return Err(GiveUp);
        }
        let Some(old) = self.old else {
            let array = Array {
                w: self.w,
                start: 0,
                next: n,
            };
            let close = false;
            return Ok(Skipping {
                array,
                skip: n,
                close,
            });
        };
        self.w.set_type(tag::ARRAY)?;
        let start = self.w.open();
        // The old array's first `n` elements, whose keys are `0`..`n - 1`
        // as this array's are: all of its elements (between its length
        // and its NUL), or those a walk counts.
        let mut walk = Walk::new(old).map_err(|_| GiveUp)?;
        let from = walk.at();
        let elements = if self.prefix.all {
            &old[from..old.len() - 1]
        } else {
            for _ in 0..n {
                match walk.next_elem() {
                    Ok(Some(_)) => {}
                    _ => return Err(GiveUp),
                }
            }
            walk.since(from)
        };
        self.w.bytes.extend_from_slice(elements);
        Ok(Skipping {
            array: Array {
                w: self.w,
                start,
                next: n,
            },
            skip: n,
            close: true,
        })
    }

    fn serialize_str(self, _: &str) -> Result<()> {
        Err(GiveUp)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(GiveUp)
    }

    give_up_on_non_strings!(but_sequences);
}

/// The array being written after its copied elements.
pub(super) struct Skipping<'a> {
    array: Array<'a>,
    /// Elements still to pass over (copied already).
    skip: usize,
    /// Whether the array is closed at the end (not when its elements go
    /// into an earlier array).
    close: bool,
}

impl ser::SerializeSeq for Skipping<'_> {
    type Ok = ();
    type Error = GiveUp;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        if self.skip > 0 {
            self.skip -= 1;
            return Ok(());
        }
        ser::SerializeSeq::serialize_element(&mut self.array, value)
    }
    fn end(self) -> Result<()> {
        if self.skip > 0 {
            // Fewer elements than copied: not the sequence compared.
            return Err(GiveUp);
        }
        match self.close {
            true => ser::SerializeSeq::end(self.array),
            false => Ok(()),
        }
    }
}
