//! A value written as a patch of its earlier serialization: only the
//! top-level fields not known unchanged (`codec::same`) are serialized,
//! each beside the range of the earlier element it replaces. Applying the
//! patch to the earlier bytes gives byte for byte what
//! [`to_vec`](super::to_vec) writes, without writing (or copying) the
//! unchanged fields at all: a save of one scalar of a 250 KB document
//! serializes the scalar, not the document.
//!
//! Only a value with the earlier document's top-level keys, in its order,
//! is patched: a field the value now skips or adds (`skip_serializing_if`)
//! gives up, and the caller serializes the whole value.

use std::ops::Range;

use serde::ser::{self, Impossible, Serialize};

use super::compound::Struct;
use super::leaf::give_up_on_non_strings;
use super::splice::{Prefix, Prefixed, Splice};
use super::{short, GiveUp, Result, Writer};
use crate::codec::scan::Walk;

/// The top-level fields of a value that may differ from an earlier
/// serialization of it, and where each stands in it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Patch {
    /// A document of the written fields, in the value's order.
    pub written: Vec<u8>,
    /// One per written field: its element in `written` (type, key and
    /// value), and the range of the earlier element of the same key.
    pub pieces: Vec<Piece>,
}

/// One written field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Piece {
    pub new: Range<usize>,
    pub old: Range<usize>,
}

/// `value` written as a patch of `splice.from`: the fields `splice` marks
/// unchanged are not written, the others are (an array's unchanged first
/// elements copied from `splice.from`). `None` when `bson` must serialize
/// the value (see the module docs of `rawser`), or when its top-level keys
/// are not those of `splice.from`, in its order.
pub(crate) fn to_patch<T: Serialize + ?Sized>(value: &T, splice: &Splice<'_>) -> Option<Patch> {
    let mut top = Top {
        w: Writer {
            bytes: Vec::with_capacity(short::CHUNK),
            type_index: 0,
        },
        walking: Walking {
            splice,
            next_name: 0,
            from: Walk::new(splice.from).ok()?,
            pieces: Vec::new(),
        },
    };
    value.serialize(&mut top).ok()?;
    // Every earlier element has its field.
    if !matches!(top.walking.from.next_elem(), Ok(None)) {
        return None;
    }
    Some(Patch {
        written: top.w.bytes,
        pieces: top.walking.pieces,
    })
}

impl Patch {
    /// The bytes of `from` (the earlier document) with each piece's
    /// element in place of the earlier one, in place.
    pub fn apply(&self, mut from: Vec<u8>) -> Vec<u8> {
        // Back to front: an earlier range stays where it is.
        for piece in self.pieces.iter().rev() {
            let new = &self.written[piece.new.clone()];
            if piece.old.len() == new.len() {
                from[piece.old.clone()].copy_from_slice(new);
            } else {
                from.splice(piece.old.clone(), new.iter().copied());
            }
        }
        let len = i32::try_from(from.len()).unwrap_or(i32::MAX);
        from[..4].copy_from_slice(&len.to_le_bytes());
        from
    }

    /// [`apply`](Patch::apply) to a copy of `from`.
    pub fn applied(&self, from: &[u8]) -> Vec<u8> {
        let grown: usize = self.pieces.iter().map(|p| p.new.len()).sum();
        let mut copy = Vec::with_capacity(from.len() + grown);
        copy.extend_from_slice(from);
        self.apply(copy)
    }
}

/// The top-level document being written.
struct Top<'s> {
    w: Writer,
    walking: Walking<'s>,
}

/// The earlier document, walked beside the value's fields.
struct Walking<'s> {
    splice: &'s Splice<'s>,
    /// Where the next field's name is searched from in `splice.names`.
    next_name: usize,
    /// The earlier document, after the element of the last field.
    from: Walk<'s>,
    pieces: Vec<Piece>,
}

/// What to do with one field.
enum Field<'s> {
    /// Nothing: it is unchanged.
    Skip,
    /// Write it; the earlier element is at `old`.
    Write { old: Range<usize> },
    /// Write it, its array's first elements copied from `value` (the
    /// earlier array's value).
    Prefixed {
        old: Range<usize>,
        value: &'s [u8],
        prefix: Prefix,
    },
}

impl<'s> Walking<'s> {
    /// The earlier element of the field `key`, which must be the next one,
    /// and whether the field is known unchanged.
    fn field(&mut self, key: &str) -> Result<Field<'s>> {
        let names = self.splice.names;
        let rest = names.get(self.next_name..).ok_or(GiveUp)?;
        let at = rest.iter().position(|n| *n == key).ok_or(GiveUp)?;
        let i = self.next_name + at;
        self.next_name = i + 1;
        let start = self.from.at();
        let elem = match self.from.next_elem() {
            Ok(Some(elem)) if elem.key == key.as_bytes() => elem,
            _ => return Err(GiveUp),
        };
        let old = start..self.from.at();
        let unchanged = self.splice.unchanged;
        if i < 128 && unchanged.fields & (1 << i) != 0 {
            return Ok(Field::Skip);
        }
        let (n, all) = unchanged.prefix_of(i);
        if n > 0 && elem.is_array() {
            let prefix = Prefix { n, all };
            return Ok(Field::Prefixed {
                old,
                value: elem.value,
                prefix,
            });
        }
        Ok(Field::Write { old })
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

    /// The writer's own struct: it gives up on an `ObjectId`, a date or
    /// another extended-JSON struct at the top, which is no document.
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Fields<'a, 's>> {
        Ok(Fields {
            inner: ser::Serializer::serialize_struct(&mut self.w, name, len)?,
            walking: &mut self.walking,
        })
    }

    give_up_on_non_strings!();
}

/// The top-level struct being written.
struct Fields<'a, 's> {
    inner: Struct<'a>,
    walking: &'a mut Walking<'s>,
}

impl ser::SerializeStruct for Fields<'_, '_> {
    type Ok = ();
    type Error = GiveUp;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        let Struct::Doc(doc) = &mut self.inner else {
            return Err(GiveUp);
        };
        let start = doc.w.bytes.len();
        let old = match self.walking.field(key)? {
            Field::Skip => return Ok(()),
            Field::Write { old } => {
                ser::SerializeStruct::serialize_field(&mut self.inner, key, value)?;
                old
            }
            Field::Prefixed { old, value: from, prefix } => {
                doc.w.key(key)?;
                value.serialize(Prefixed {
                    w: doc.w,
                    old: from,
                    prefix,
                })?;
                old
            }
        };
        let Struct::Doc(doc) = &self.inner else {
            return Err(GiveUp);
        };
        let new = start..doc.w.bytes.len();
        self.walking.pieces.push(Piece { new, old });
        Ok(())
    }

    fn skip_field(&mut self, _: &'static str) -> Result<()> {
        Ok(())
    }

    fn end(self) -> Result<()> {
        ser::SerializeStruct::end(self.inner)
    }
}
