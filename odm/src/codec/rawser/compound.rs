//! The serializers of the compound values being written: arrays, documents
//! (maps and structs), and the `$oid` / `$date` structs `ObjectId` and
//! `DateTime` serialize as. Each element or field goes through the direct
//! path (`direct::write`) when it can, else through the `Writer`; the
//! extended-JSON structs' fields through `Extended`.

use serde::ser::{self, Serialize};

use super::leaf::{Extended, KeyWriter};
use super::{direct, GiveUp, Result, Writer};

/// An array being written.
pub(super) struct Array<'a> {
    pub w: &'a mut Writer,
    pub start: usize,
    pub next: usize,
}

impl Array<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.w.index(self.next);
        self.next += 1;
        if direct::write(self.w, value)? {
            return Ok(());
        }
        value.serialize(&mut *self.w)
    }
}

/// serde's three sequences (a `Vec`, a tuple, a tuple struct) are one
/// array, each element written by [`Array::element`].
macro_rules! array {
    ($trait:ident, $element:ident) => {
        impl ser::$trait for Array<'_> {
            type Ok = ();
            type Error = GiveUp;
            fn $element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.element(value)
            }
            fn end(self) -> Result<()> {
                self.w.close(self.start);
                Ok(())
            }
        }
    };
}

array!(SerializeSeq, serialize_element);
array!(SerializeTuple, serialize_element);
array!(SerializeTupleStruct, serialize_field);

/// A document (map or struct) being written.
pub(super) struct Doc<'a> {
    pub w: &'a mut Writer,
    pub start: usize,
}

impl ser::SerializeMap for Doc<'_> {
    type Ok = ();
    type Error = GiveUp;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        key.serialize(KeyWriter(self.w))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result<()> {
        self.w.close(self.start);
        Ok(())
    }
}

/// What a `$oid` / `$date` struct expects next.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// The `$oid` field: 24 hex digits.
    Oid,
    /// The `$date` field: a `{$numberLong: "<millis>"}` struct.
    Date,
    /// Its `$numberLong` field: the milliseconds as a decimal string.
    NumberLong,
    Done,
}

/// A struct being written: a document, or an `ObjectId` / `DateTime` that
/// serializes as an extended-JSON struct.
pub(super) enum Struct<'a> {
    Doc(Doc<'a>),
    Value(&'a mut Writer, Step),
}

impl ser::SerializeStruct for Struct<'_> {
    type Ok = ();
    type Error = GiveUp;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        match self {
            Struct::Doc(d) => {
                d.w.key(key)?;
                if direct::write(d.w, value)? {
                    return Ok(());
                }
                value.serialize(&mut *d.w)
            }
            Struct::Value(w, step) => {
                let next = match (*step, key) {
                    (Step::Oid, "$oid") => Step::Oid,
                    (Step::Date, "$date") => Step::Date,
                    (Step::NumberLong, "$numberLong") => Step::NumberLong,
                    _ => return Err(GiveUp),
                };
                value.serialize(Extended { w, step: next })?;
                *step = Step::Done;
                Ok(())
            }
        }
    }
    fn end(self) -> Result<()> {
        match self {
            Struct::Doc(d) => {
                d.w.close(d.start);
                Ok(())
            }
            Struct::Value(_, Step::Done) => Ok(()),
            Struct::Value(..) => Err(GiveUp),
        }
    }
}
