//! A fast path for deserializing a value from raw BSON.
//!
//! Every load decodes the stored document, and `bson`'s raw deserializer
//! spends most of that time on bookkeeping: each element is re-checked
//! through several layers, and each key and error carries context that is
//! only needed when something fails. This deserializer reads the common
//! element types (double, string, document, array, ObjectId, bool, datetime,
//! null, int32, int64) directly from the bytes and presents each value to
//! the visitor exactly as `bson`'s raw deserializer does (same `visit_*`
//! call, same `$oid` / `$date` / `$numberLong` maps, same option, enum,
//! bytes and newtype handling, not human-readable).
//!
//! It checks at least what `bson` checks. Any other element type, `bson`'s
//! private newtypes (UUID, raw BSON, human-readable, UTF-8-lossy), anything
//! malformed, and every error (the visitor's included) make it give up:
//! [`from_slice`] returns `None` and the caller decodes with `bson`, so
//! results and error messages stay exactly `bson`'s. Agreement with `bson`
//! is checked by the tests in `rawde/tests.rs` and
//! `rawde/agreement_tests.rs`, and on 100,000 random stored documents by
//! `rawde/equivalence_tests.rs`, against `bson` 2.15.0 and 3.1.0 (see
//! `rawser/equivalence_tests.rs` for the test that fails on an upgrade).
//!
//! Two deliberate differences, both shared with the fallback in `codec`:
//! the top-level version key is never shown to the value (see
//! [`from_slice`]), and an enum stored as a document must have exactly one
//! key (`bson`'s raw deserializer reads the first and ignores the rest; this
//! one gives up and the fallback refuses it, see `crate::codec::strict`).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;

mod access;
mod direct;

use crate::codec::keys::Hidden;
pub use access::Seen;
use access::{DateTimeAccess, DateTimeState, Elements, ObjectIdAccess};

/// BSON element types this deserializer reads.
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

/// The only error: "let `bson` do it".
#[derive(Debug)]
pub(crate) struct GiveUp;

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not on the fast path")
    }
}

impl std::error::Error for GiveUp {}

impl de::Error for GiveUp {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        GiveUp
    }
}

type Result<T> = std::result::Result<T, GiveUp>;

/// `value` decoded from the BSON document `bytes`, or `None` when `bson`
/// must do it (unsupported content, malformed bytes, or any error).
///
/// A top-level element under one of odm's keys (`skip`: the version key,
/// the schema version key, and always the fence key `__fence`, see
/// `wire::fence`) is never shown to the value: the result is that of
/// `bson` decoding the document without them.
pub(crate) fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8], skip: Hidden) -> Option<T> {
    from_slice_seeing(bytes, skip).map(|(value, _)| value)
}

/// [`from_slice`], and what the decoding saw of the version key on its
/// way (a struct's decoding walks the whole stored document, so the
/// caller need not walk it again to read the version).
pub(crate) fn from_slice_seeing<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    skip: Hidden,
) -> Option<(T, Seen<'de>)> {
    check_document(bytes).ok()?;
    let seen = std::cell::Cell::new(Seen::Unknown);
    let root = Root {
        data: bytes,
        skip,
        seen: &seen,
    };
    let value = T::deserialize(root).ok()?;
    Some((value, seen.get()))
}

/// [`from_slice_seeing`] with the top-level `hide` left out too: an enum
/// model's kind, read by its variant's type (as serde's internally tagged
/// decoding shows the variant the document without its tag).
pub(crate) fn from_slice_hiding<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    skip: Hidden,
    hide: &'static str,
) -> Option<(T, Seen<'de>)> {
    from_slice_seeing(
        bytes,
        Hidden {
            kind: Some(hide),
            ..skip
        },
    )
}

fn read_i32(data: &[u8]) -> Result<i32> {
    let four: [u8; 4] = data
        .get(..4)
        .ok_or(GiveUp)?
        .try_into()
        .map_err(|_| GiveUp)?;
    Ok(i32::from_le_bytes(four))
}

fn read_8(data: &[u8]) -> Result<[u8; 8]> {
    data.try_into().map_err(|_| GiveUp)
}

/// `bytes` is one whole document: its length, at least 5, matches and it
/// ends with a NUL.
fn check_document(bytes: &[u8]) -> Result<()> {
    let len = read_i32(bytes)?;
    if len < 5 || len as usize != bytes.len() || bytes[bytes.len() - 1] != 0 {
        return Err(GiveUp);
    }
    Ok(())
}

/// One element's value: its type and exactly its bytes (sizes already
/// checked when the element was read).
#[derive(Clone, Copy)]
pub(crate) struct Value<'de> {
    kind: u8,
    data: &'de [u8],
}

impl<'de> Value<'de> {
    /// A string's text: length prefix, UTF-8 bytes, NUL (checked on read).
    fn str(&self) -> Result<&'de str> {
        crate::codec::text::utf8(&self.data[4..self.data.len() - 1]).ok_or(GiveUp)
    }

    /// What reading the element checks beyond its size: a string's UTF-8,
    /// a boolean's byte (what `bson` checks of an element it leaves out).
    fn check(&self) -> Result<()> {
        match self.kind {
            tag::STRING => self.str().map(drop),
            tag::BOOLEAN => self.bool().map(drop),
            _ => Ok(()),
        }
    }

    fn bool(&self) -> Result<bool> {
        match self.data {
            [0] => Ok(false),
            [1] => Ok(true),
            _ => Err(GiveUp),
        }
    }

    /// What `bson`'s raw deserializer does without a type hint.
    fn visit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.kind {
            tag::INT32 => visitor.visit_i32(read_i32(self.data)?),
            tag::INT64 => visitor.visit_i64(i64::from_le_bytes(read_8(self.data)?)),
            tag::DOUBLE => visitor.visit_f64(f64::from_le_bytes(read_8(self.data)?)),
            tag::STRING => visitor.visit_borrowed_str(self.str()?),
            tag::BOOLEAN => visitor.visit_bool(self.bool()?),
            tag::NULL => visitor.visit_unit(),
            tag::OBJECT_ID => visitor.visit_map(ObjectIdAccess::new(self.data)?),
            tag::DOCUMENT => visitor.visit_map(Elements::new(self.data)),
            tag::ARRAY => visitor.visit_seq(Elements::new(self.data)),
            tag::DATE_TIME => {
                let millis = i64::from_le_bytes(read_8(self.data)?);
                let mut state = DateTimeState::new(millis);
                visitor.visit_map(DateTimeAccess(&mut state))
            }
            _ => Err(GiveUp),
        }
    }
}

impl<'de> de::Deserializer<'de> for Value<'de> {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.kind {
            tag::NULL => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.kind {
            tag::STRING => {
                let name: Cow<'de, str> = Cow::Borrowed(self.str()?);
                visitor.visit_enum(name.into_deserializer())
            }
            tag::DOCUMENT => visitor.visit_enum(Elements::new(self.data)),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.kind {
            tag::OBJECT_ID => visitor.visit_borrowed_bytes(self.data),
            _ => self.visit(visitor),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        // `bson`'s private newtypes (UUID, raw BSON, human-readable and
        // UTF-8-lossy modes) change how the value is read.
        if name.starts_with("$__") {
            return Err(GiveUp);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // What `bson` does (a map of the document), knowing the names.
        match self.kind {
            tag::DOCUMENT => visitor.visit_map(Elements::with_fields(self.data, fields)),
            _ => self.visit(visitor),
        }
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    forward_to_deserialize_any! {
        bool char str string byte_buf unit unit_struct identifier seq tuple
        tuple_struct map ignored_any i8 i16 i32 i64 u8 u16 u32 u64 f32
        f64
    }
}

/// The stored document itself: a document [`Value`] whose elements under
/// odm's keys (`skip`, and the fence key) are left out.
struct Root<'de, 's> {
    data: &'de [u8],
    skip: Hidden,
    /// Where a struct's decoding leaves what it saw of the version key.
    seen: &'s std::cell::Cell<Seen<'de>>,
}

impl<'de> Root<'de, '_> {
    fn elements(&self) -> Elements<'de> {
        Elements::new(self.data).skipping(self.skip)
    }
}

/// What [`Value`] does for a document, on the remaining elements.
impl<'de> de::Deserializer<'de> for Root<'de, '_> {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(self.elements())
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self.elements())
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name.starts_with("$__") {
            return Err(GiveUp);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let mut elements = Elements::with_fields(self.data, fields).skipping(self.skip);
        let value = visitor.visit_map(&mut elements)?;
        self.seen.set(elements.seen);
        Ok(value)
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    forward_to_deserialize_any! {
        bool char str string bytes byte_buf unit unit_struct identifier seq
        tuple tuple_struct map ignored_any i8 i16 i32 i64 u8 u16 u32 u64 f32
        f64
    }
}

#[cfg(test)]
mod agreement_tests;
#[cfg(test)]
mod equivalence_tests;
#[cfg(test)]
mod skip_tests;
#[cfg(test)]
mod tests;
