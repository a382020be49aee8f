//! A fast path for serializing a value to raw BSON.
//!
//! Every save serializes the whole value to diff it, and every load
//! serializes it once for the snapshot, so this is odm's hottest code. The
//! `bson` crate's serializer makes two costly detours on common values: it
//! parses each `ObjectId` back from hex through an allocating decoder, and
//! formats each array index with `format!`. This serializer writes the same
//! bytes without them, for the values most documents are made of: numbers,
//! strings, options, sequences, maps, structs, unit enum variants, newtype
//! variants, `ObjectId` and `DateTime`.
//!
//! Anything else (binary, UUID and raw-BSON newtypes, the other extended-JSON
//! types, struct and tuple variants, non-string map keys) and every error
//! make it give up: [`to_vec`] returns `None` and the caller serializes with
//! `bson`, so results and error messages stay exactly `bson`'s. Byte-for-byte
//! agreement with `bson` is checked by the tests in `rawser/tests.rs`, and
//! on 100,000 random values by `rawser/equivalence_tests.rs`, against
//! `bson` 2.15.0 and 3.1.0 (the tests run once per release, see the
//! `bson-3` feature): a test there fails when the workspace builds another
//! `bson`, so an upgrade is proven again rather than trusted.
//!
//! The files: this one holds the `Writer` (the bytes, element types and
//! keys) and its serializer of single values, `compound.rs` the arrays,
//! documents and `$oid` / `$date` structs being written, `leaf.rs` the
//! contents of those structs and map keys, `direct.rs` the shortcut for
//! `ObjectId` and `DateTime` values.

use std::fmt;

use serde::ser::{self, Impossible, Serialize};

/// BSON element types this serializer writes.
mod tag {
    pub const DOUBLE: u8 = 0x01;
    pub const STRING: u8 = 0x02;
    pub const DOCUMENT: u8 = 0x03;
    pub const ARRAY: u8 = 0x04;
    pub const OBJECT_ID: u8 = 0x07;
    pub const BOOLEAN: u8 = 0x08;
    pub const DATE_TIME: u8 = 0x09;
    pub const NULL: u8 = 0x0A;
    pub const INT32: u8 = 0x10;
    pub const INT64: u8 = 0x12;
}

/// Struct names `bson` gives a meaning of their own; all but `$oid` and
/// `$date` are left to `bson`.
const EXTENDED: &[&str] = &[
    "$binary",
    "$timestamp",
    "$minKey",
    "$maxKey",
    "$code",
    "$codeWithScope",
    "$symbol",
    "$undefined",
    "$regularExpression",
    "$dbPointer",
    "$numberDecimal",
];

/// The only error: "let `bson` do it".
#[derive(Debug)]
struct GiveUp;

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not on the fast path")
    }
}

impl std::error::Error for GiveUp {}

impl ser::Error for GiveUp {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        GiveUp
    }
}

type Result<T> = std::result::Result<T, GiveUp>;

/// The bytes of `value` as a BSON document, or `None` when `bson` must do
/// it. `capacity` is a guess of the size (e.g. the previous snapshot's).
pub(crate) fn to_vec<T: Serialize + ?Sized>(value: &T, capacity: usize) -> Option<Vec<u8>> {
    let mut s = Writer {
        // A chunk more: the last short key or string written through a
        // chunk then does not make a vector of the guessed size grow.
        bytes: Vec::with_capacity(capacity + short::CHUNK),
        type_index: 0,
    };
    value.serialize(&mut s).ok()?;
    Some(s.bytes)
}

struct Writer {
    bytes: Vec<u8>,
    /// Where the type byte of the element being written is; 0 at the top.
    type_index: usize,
}

impl Writer {
    fn set_type(&mut self, t: u8) -> Result<()> {
        if self.type_index == 0 {
            // The top level must be a document, whose type is not written.
            return if t == tag::DOCUMENT {
                Ok(())
            } else {
                Err(GiveUp)
            };
        }
        self.bytes[self.type_index] = t;
        Ok(())
    }

    /// Starts an element: its type byte (set later) and its key.
    fn key(&mut self, key: &str) -> Result<()> {
        let key = key.as_bytes();
        self.type_index = self.bytes.len();
        if key.len() <= short::SHORT {
            // Type placeholder, key and NUL in one chunk.
            let key = short::read(key);
            if key.has_nul() {
                return Err(GiveUp);
            }
            let mut element = [0u8; short::CHUNK];
            key.put(&mut element, 1);
            short::append(&mut self.bytes, &element, key.len() + 2);
        } else {
            if key.contains(&0) {
                return Err(GiveUp);
            }
            self.bytes.push(0);
            self.bytes.extend_from_slice(key);
            self.bytes.push(0);
        }
        Ok(())
    }

    /// Starts an array element: its type byte and its decimal index.
    fn index(&mut self, i: usize) {
        self.type_index = self.bytes.len();
        if i < 100 {
            // Type placeholder, one or two digits and NUL in one chunk.
            let mut element = [0u8; short::CHUNK];
            let len = if i < 10 {
                element[1] = b'0' + i as u8;
                3
            } else {
                element[1] = b'0' + (i / 10) as u8;
                element[2] = b'0' + (i % 10) as u8;
                4
            };
            short::append(&mut self.bytes, &element, len);
            return;
        }
        self.bytes.push(0);
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut n = i;
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.bytes.extend_from_slice(&digits[at..]);
        self.bytes.push(0);
    }

    /// Opens a document or array: a length to patch on close.
    fn open(&mut self) -> usize {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(&[0; 4]);
        start
    }

    fn close(&mut self, start: usize) {
        self.bytes.push(0);
        let len = (self.bytes.len() - start) as i32;
        self.bytes[start..start + 4].copy_from_slice(&len.to_le_bytes());
    }

    fn write_i32(&mut self, v: i32) -> Result<()> {
        self.set_type(tag::INT32)?;
        self.bytes.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }

    fn write_i64(&mut self, v: i64) -> Result<()> {
        self.set_type(tag::INT64)?;
        self.bytes.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }

    fn write_str(&mut self, v: &str) -> Result<()> {
        self.set_type(tag::STRING)?;
        let v = v.as_bytes();
        if v.len() <= short::SHORT {
            // Length, bytes and NUL in one chunk.
            let text = short::read(v);
            let mut value = [0u8; short::CHUNK];
            value[..4].copy_from_slice(&(v.len() as i32 + 1).to_le_bytes());
            text.put(&mut value, 4);
            short::append(&mut self.bytes, &value, v.len() + 5);
            return Ok(());
        }
        self.bytes
            .extend_from_slice(&(v.len() as i32 + 1).to_le_bytes());
        self.bytes.extend_from_slice(v);
        self.bytes.push(0);
        Ok(())
    }
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Array<'a>;
    type SerializeTuple = Array<'a>;
    type SerializeTupleStruct = Array<'a>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Doc<'a>;
    type SerializeStruct = Struct<'a>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.set_type(tag::BOOLEAN)?;
        self.bytes.push(v as u8);
        Ok(())
    }

    fn serialize_i8(self, v: i8) -> Result<()> {
        self.write_i32(v.into())
    }

    fn serialize_i16(self, v: i16) -> Result<()> {
        self.write_i32(v.into())
    }

    fn serialize_i32(self, v: i32) -> Result<()> {
        self.write_i32(v)
    }

    fn serialize_i64(self, v: i64) -> Result<()> {
        self.write_i64(v)
    }

    fn serialize_u8(self, v: u8) -> Result<()> {
        self.write_i32(v.into())
    }

    fn serialize_u16(self, v: u16) -> Result<()> {
        self.write_i32(v.into())
    }

    fn serialize_u32(self, v: u32) -> Result<()> {
        self.write_i64(v.into())
    }

    fn serialize_u64(self, v: u64) -> Result<()> {
        self.write_i64(i64::try_from(v).map_err(|_| GiveUp)?)
    }

    fn serialize_f32(self, v: f32) -> Result<()> {
        self.serialize_f64(v.into())
    }

    fn serialize_f64(self, v: f64) -> Result<()> {
        self.set_type(tag::DOUBLE)?;
        self.bytes.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.write_str(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        self.write_str(v)
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result<()> {
        Err(GiveUp)
    }

    fn serialize_none(self) -> Result<()> {
        self.set_type(tag::NULL)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<()> {
        self.set_type(tag::NULL)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.set_type(tag::NULL)
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.write_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        // `bson`'s private newtypes (UUID, raw documents, human-readable
        // mode) change how the value is written.
        if name.starts_with("$__") {
            return Err(GiveUp);
        }
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.set_type(tag::DOCUMENT)?;
        let start = self.open();
        self.key(variant)?;
        value.serialize(&mut *self)?;
        self.close(start);
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Array<'a>> {
        self.set_type(tag::ARRAY)?;
        let start = self.open();
        Ok(Array {
            w: self,
            start,
            next: 0,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<Array<'a>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Array<'a>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(GiveUp)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Doc<'a>> {
        self.set_type(tag::DOCUMENT)?;
        let start = self.open();
        Ok(Doc { w: self, start })
    }

    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Struct<'a>> {
        match name {
            "$oid" => {
                self.set_type(tag::OBJECT_ID)?;
                Ok(Struct::Value(self, Step::Oid))
            }
            "$date" => {
                self.set_type(tag::DATE_TIME)?;
                Ok(Struct::Value(self, Step::Date))
            }
            _ if EXTENDED.contains(&name) => Err(GiveUp),
            _ => self.serialize_map(None).map(Struct::Doc),
        }
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(GiveUp)
    }
}

mod compound;
mod direct;
mod leaf;
pub(crate) mod noting;
pub(crate) mod patch;
pub(crate) mod pick;
mod short;
pub(crate) mod splice;
pub(crate) mod tail;
mod top;

use compound::{Array, Doc, Step, Struct};

#[cfg(test)]
mod equivalence_tests;
#[cfg(test)]
pub(crate) mod splice_tests;
#[cfg(test)]
mod tests;
