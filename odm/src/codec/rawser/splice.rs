//! A document written with some top-level fields copied from an earlier
//! serialization instead of serialized again: the fields a save knows
//! unchanged (`codec::same`). The copied bytes are what the field's value
//! serializes to, so the result is byte for byte what
//! [`to_vec`](super::to_vec) writes.

use serde::ser::{self, Impossible, Serialize};

use super::compound::Struct;
use super::leaf::give_up_on_non_strings;
use super::{short, GiveUp, Result, Writer, EXTENDED};
use crate::codec::scan::Walk;

/// Which top-level fields to copy, and from where.
pub(crate) struct Splice<'s> {
    /// The earlier serialization (a whole document).
    pub from: &'s [u8],
    /// The fields' stored names, in declaration order (serde's order).
    pub names: &'static [&'static str],
    /// Bit `i`: the field `names[i]` is the same as when `from` was
    /// written (only the first 128 names can be).
    pub unchanged: u128,
}

/// The bytes of `value` as [`to_vec`](super::to_vec) writes them, with the
/// unchanged fields of `splice` copied from `splice.from`; `None` when
/// `bson` must serialize it (see the module docs of `rawser`), or when
/// `splice.from` is not a document.
pub(crate) fn to_vec<T: Serialize + ?Sized>(
    value: &T,
    capacity: usize,
    splice: &Splice<'_>,
) -> Option<Vec<u8>> {
    let mut top = Top {
        w: Writer {
            bytes: Vec::with_capacity(capacity + short::CHUNK),
            type_index: 0,
        },
        copying: Copying {
            names: splice.names,
            unchanged: splice.unchanged,
            next_name: 0,
            from: Walk::new(splice.from).ok()?,
        },
    };
    value.serialize(&mut top).ok()?;
    Some(top.w.bytes)
}

/// The top-level document being written.
struct Top<'s> {
    w: Writer,
    copying: Copying<'s>,
}

/// What is copied, and where the copying stands.
struct Copying<'s> {
    names: &'static [&'static str],
    unchanged: u128,
    /// Where the next field's name is searched from in `names`.
    next_name: usize,
    /// The earlier document, at the element after the last one copied.
    from: Walk<'s>,
}

impl<'s> Copying<'s> {
    /// The earlier bytes of the element `key` (type, key and value), when
    /// the field is unchanged and the earlier document holds it after the
    /// last element copied.
    fn take(&mut self, key: &str) -> Option<&'s [u8]> {
        // serde writes the fields in declaration order; one that is skipped
        // (`skip_serializing_if`) is passed over.
        let rest = self.names.get(self.next_name..)?;
        let i = self.next_name + rest.iter().position(|n| *n == key)?;
        self.next_name = i + 1;
        if i >= 128 || self.unchanged & (1 << i) == 0 {
            return None;
        }
        // Usually the next element; one the earlier value wrote and this
        // one skips (or the reverse) is passed over.
        let mut walk = self.from.clone();
        loop {
            let start = walk.at();
            let elem = walk.next_elem().ok()??;
            if elem.key == key.as_bytes() {
                self.from = walk.clone();
                return Some(walk.since(start));
            }
        }
    }
}

impl<'a, 's> ser::Serializer for &'a mut Top<'s> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Impossible<(), GiveUp>;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Impossible<(), GiveUp>;
    type SerializeStruct = Fields<'a, 's>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_str(self, _: &str) -> Result<()> {
        Err(GiveUp)
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Fields<'a, 's>> {
        // A value that serializes as an extended-JSON struct is no document.
        if name == "$oid" || name == "$date" || EXTENDED.contains(&name) {
            return Err(GiveUp);
        }
        Ok(Fields {
            inner: ser::Serializer::serialize_struct(&mut self.w, name, len)?,
            copying: &mut self.copying,
        })
    }

    give_up_on_non_strings!();
}

/// The top-level struct being written.
struct Fields<'a, 's> {
    inner: Struct<'a>,
    copying: &'a mut Copying<'s>,
}

impl ser::SerializeStruct for Fields<'_, '_> {
    type Ok = ();
    type Error = GiveUp;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        if let (Some(bytes), Struct::Doc(doc)) = (self.copying.take(key), &mut self.inner) {
            doc.w.bytes.extend_from_slice(bytes);
            return Ok(());
        }
        ser::SerializeStruct::serialize_field(&mut self.inner, key, value)
    }
    fn end(self) -> Result<()> {
        ser::SerializeStruct::end(self.inner)
    }
}
