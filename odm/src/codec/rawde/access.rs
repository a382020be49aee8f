//! The accessors behind the deserializer: the elements of a document or
//! array, and the extended-JSON maps `bson` presents an `ObjectId`
//! (`{$oid: hex}`) and a datetime (`{$date: {$numberLong: "millis"}}`) as.

use mongodb::bson::oid::ObjectId;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer as _, Visitor};
use serde::forward_to_deserialize_any;

use super::{read_i32, tag, GiveUp, Result, Value};
use crate::codec::text::same;

/// The elements of a document or array, read one at a time.
pub(super) struct Elements<'de> {
    /// From the next element's type byte to the closing NUL.
    rest: &'de [u8],
    /// The value of the element whose key was read last.
    current: Option<Value<'de>>,
    /// The field names of the struct being read (empty for other maps).
    fields: &'static [&'static str],
    /// The field expected next: stored documents usually keep the order.
    next_field: usize,
    /// A key never shown to the visitor (the version key, at the top level).
    skip: Option<&'static str>,
    /// The top-level document: the fence is never shown either.
    top: bool,
    /// What the walk saw of the `skip` key: the first element under it,
    /// or that the document ended without one.
    pub(super) seen: Seen<'de>,
}

/// What a walk of the stored document saw of the version key.
#[derive(Clone, Copy, Default)]
pub(crate) enum Seen<'de> {
    /// Not known: the walk stopped before the key and before the end.
    #[default]
    Unknown,
    /// The document has no element under the key.
    Absent,
    /// The first element under the key, as its type and value bytes.
    Found(u8, &'de [u8]),
}

impl<'de> Elements<'de> {
    /// `doc` is a checked document: length >= 5, NUL-terminated.
    pub(super) fn new(doc: &'de [u8]) -> Self {
        Self::with_fields(doc, &[])
    }

    /// The elements of a document read into a struct with these fields.
    pub(super) fn with_fields(doc: &'de [u8], fields: &'static [&'static str]) -> Self {
        Elements {
            rest: &doc[4..],
            current: None,
            fields,
            next_field: 0,
            skip: None,
            top: false,
            seen: Seen::Unknown,
        }
    }

    /// The elements of the stored document itself: without those under
    /// `key` (the version key, if any) or under the fence key.
    pub(super) fn skipping(mut self, key: Option<&'static str>) -> Self {
        self.skip = key;
        self.top = true;
        self
    }

    /// Whether a key is never shown (see [`skipping`](Self::skipping)).
    fn hides(&self, key: &[u8]) -> bool {
        self.top
            && (crate::codec::version_key::is_odm_key(key)
                || self.skip.is_some_and(|skip| same(skip.as_bytes(), key)))
    }

    /// A key as text. A key equal to one of the struct's field names is
    /// that name (valid UTF-8 by construction, no need to check it again).
    fn key(&mut self, key: &'de [u8]) -> Result<&'de str> {
        let at = match self.fields.get(self.next_field) {
            Some(field) if same(field.as_bytes(), key) => Some(self.next_field),
            _ => self
                .fields
                .iter()
                .position(|field| same(field.as_bytes(), key)),
        };
        match at {
            Some(at) => {
                self.next_field = at + 1;
                Ok(self.fields[at])
            }
            None => std::str::from_utf8(key).map_err(|_| GiveUp),
        }
    }

    /// The next key and value, `None` at the closing NUL. An element under
    /// the skipped key is read and checked as `bson` checks the elements it
    /// leaves out (see [`Value::check`]), but not returned.
    fn advance(&mut self) -> Result<Option<(&'de str, Value<'de>)>> {
        loop {
            match self.advance_raw()? {
                None => {
                    if matches!(self.seen, Seen::Unknown) {
                        self.seen = Seen::Absent;
                    }
                    return Ok(None);
                }
                Some((key, value)) if self.hides(key) => {
                    value.check()?;
                    let first = matches!(self.seen, Seen::Unknown);
                    if first && self.skip.is_some_and(|skip| skip.as_bytes() == key) {
                        self.seen = Seen::Found(value.kind, value.data);
                    }
                }
                Some((key, value)) => return Ok(Some((self.key(key)?, value))),
            }
        }
    }

    /// The next value of an array, whose keys (`"0"`, `"1"`, ...) are only
    /// checked to be UTF-8, as `bson` does, not read.
    fn advance_element(&mut self) -> Result<Option<Value<'de>>> {
        match self.advance_raw()? {
            None => Ok(None),
            Some((key, value)) => {
                if !key.is_ascii() {
                    std::str::from_utf8(key).map_err(|_| GiveUp)?;
                }
                Ok(Some(value))
            }
        }
    }

    /// How many elements are left, for a sequence's size hint (`None` if
    /// the bytes are not what `advance` accepts; it then gives up anyway).
    fn count(&self) -> Option<usize> {
        let mut rest = self.rest;
        let mut n = 0;
        loop {
            let kind = *rest.first()?;
            if kind == 0 {
                return Some(n);
            }
            let key_len = rest[1..].iter().position(|&b| b == 0)?;
            let body = &rest[key_len + 2..];
            let size = match kind {
                tag::INT32 => 4,
                tag::DOUBLE | tag::INT64 | tag::DATE_TIME => 8,
                tag::OBJECT_ID => 12,
                tag::BOOLEAN => 1,
                tag::NULL => 0,
                tag::STRING => 4 + usize::try_from(read_i32(body).ok()?).ok()?,
                tag::DOCUMENT | tag::ARRAY => usize::try_from(read_i32(body).ok()?).ok()?,
                _ => return None,
            };
            rest = body.get(size..)?;
            n += 1;
        }
    }

    /// The next key's bytes and value, `None` at the closing NUL.
    fn advance_raw(&mut self) -> Result<Option<(&'de [u8], Value<'de>)>> {
        let rest = self.rest;
        let kind = rest[0];
        if kind == 0 {
            // Only the closing NUL may be a zero type byte.
            return if rest.len() == 1 {
                Ok(None)
            } else {
                Err(GiveUp)
            };
        }
        let key_len = rest[1..].iter().position(|&b| b == 0).ok_or(GiveUp)?;
        let key = &rest[1..1 + key_len];
        let body = &rest[key_len + 2..];
        let size = match kind {
            tag::INT32 => 4,
            tag::DOUBLE | tag::INT64 | tag::DATE_TIME => 8,
            tag::OBJECT_ID => 12,
            tag::BOOLEAN => 1,
            tag::NULL => 0,
            tag::STRING => {
                let len = read_i32(body)?;
                if len < 1 {
                    return Err(GiveUp);
                }
                let size = 4 + len as usize;
                if body.get(size - 1) != Some(&0) {
                    return Err(GiveUp);
                }
                size
            }
            tag::DOCUMENT | tag::ARRAY => {
                let len = read_i32(body)?;
                if len < 5 {
                    return Err(GiveUp);
                }
                let size = len as usize;
                if body.get(size - 1) != Some(&0) {
                    return Err(GiveUp);
                }
                size
            }
            _ => return Err(GiveUp),
        };
        // The element must end before the enclosing document's NUL.
        if size >= body.len() {
            return Err(GiveUp);
        }
        let (data, rest) = body.split_at(size);
        self.rest = rest;
        Ok(Some((key, Value { kind, data })))
    }

    fn current(&self) -> Result<Value<'de>> {
        self.current.ok_or(GiveUp)
    }
}

impl<'de> de::MapAccess<'de> for Elements<'de> {
    type Error = GiveUp;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.advance()? {
            None => Ok(None),
            Some((key, value)) => {
                self.current = Some(value);
                seed.deserialize(BorrowedStrDeserializer::new(key))
                    .map(Some)
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let value = self.current()?;
        match super::direct::read::<V>(&value) {
            Some(read) => Ok(read),
            None => seed.deserialize(value),
        }
    }
}

impl<'de> de::SeqAccess<'de> for Elements<'de> {
    type Error = GiveUp;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.advance_element()? {
            None => Ok(None),
            Some(value) => {
                self.current = Some(value);
                match super::direct::read::<T>(&value) {
                    Some(read) => Ok(Some(read)),
                    None => seed.deserialize(value).map(Some),
                }
            }
        }
    }

    /// `bson` gives no hint; this one only lets a `Vec` be allocated once.
    fn size_hint(&self) -> Option<usize> {
        self.count()
    }
}

/// An enum stored as a document: its only key names the variant. On a
/// document with no key or more than one it gives up: `bson`'s raw
/// deserializer would read the first key and ignore the others (a value
/// that could not be saved back), and the fallback refuses it (see
/// `crate::codec::strict`).
impl<'de> de::EnumAccess<'de> for Elements<'de> {
    type Error = GiveUp;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(mut self, seed: V) -> Result<(V::Value, Self)> {
        let (key, value) = self.advance()?.ok_or(GiveUp)?;
        if self.advance()?.is_some() {
            return Err(GiveUp);
        }
        self.current = Some(value);
        let variant = seed.deserialize(BorrowedStrDeserializer::new(key))?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for Elements<'de> {
    type Error = GiveUp;

    fn unit_variant(self) -> Result<()> {
        Err(GiveUp)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self.current()?)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.current()?.deserialize_seq(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.current()?.deserialize_map(visitor)
    }
}

/// A fixed key of an extended-JSON map (`$oid`, `$date`, `$numberLong`).
struct Field(&'static str);

impl<'de> de::Deserializer<'de> for Field {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    forward_to_deserialize_any! {
        bool u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 char str string seq
        bytes byte_buf map struct option unit
        ignored_any unit_struct tuple_struct tuple enum identifier
    }
}

/// An `ObjectId` read without a type hint: `{$oid: "<24 hex digits>"}`.
pub(super) struct ObjectIdAccess {
    oid: ObjectId,
    visited: bool,
}

impl ObjectIdAccess {
    pub(super) fn new(bytes: &[u8]) -> Result<Self> {
        let bytes: [u8; 12] = bytes.try_into().map_err(|_| GiveUp)?;
        Ok(ObjectIdAccess {
            oid: ObjectId::from_bytes(bytes),
            visited: false,
        })
    }
}

impl<'de> de::MapAccess<'de> for ObjectIdAccess {
    type Error = GiveUp;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.visited {
            return Ok(None);
        }
        self.visited = true;
        seed.deserialize(Field("$oid")).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(HexId(self.oid))
    }
}

/// The value of `$oid`: the id as lowercase hex, whatever is asked.
struct HexId(ObjectId);

impl<'de> de::Deserializer<'de> for HexId {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_string(self.0.to_hex())
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    forward_to_deserialize_any! {
        bool u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 char str string seq
        bytes byte_buf map struct option unit newtype_struct
        ignored_any unit_struct tuple_struct tuple enum identifier
    }
}

/// How far a datetime's `{$date: {$numberLong: "millis"}}` has been read.
enum Stage {
    TopLevel,
    NumberLong,
    Done,
}

/// A datetime being read; the outer and inner maps share it.
pub(super) struct DateTimeState {
    millis: i64,
    stage: Stage,
}

impl DateTimeState {
    pub(super) fn new(millis: i64) -> Self {
        DateTimeState {
            millis,
            stage: Stage::TopLevel,
        }
    }
}

/// The `{$date: ...}` map, then its `{$numberLong: ...}` map.
pub(super) struct DateTimeAccess<'a>(pub &'a mut DateTimeState);

impl<'de> de::MapAccess<'de> for DateTimeAccess<'_> {
    type Error = GiveUp;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let key = match self.0.stage {
            Stage::TopLevel => "$date",
            Stage::NumberLong => "$numberLong",
            Stage::Done => return Ok(None),
        };
        seed.deserialize(Field(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.0)
    }
}

impl<'de> de::Deserializer<'de> for &mut DateTimeState {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.stage {
            Stage::TopLevel => {
                self.stage = Stage::NumberLong;
                visitor.visit_map(DateTimeAccess(self))
            }
            Stage::NumberLong => {
                self.stage = Stage::Done;
                visitor.visit_string(self.millis.to_string())
            }
            Stage::Done => Err(GiveUp),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    forward_to_deserialize_any! {
        bool u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 char str string seq
        bytes byte_buf map struct option unit
        ignored_any unit_struct tuple_struct tuple enum identifier
    }
}
