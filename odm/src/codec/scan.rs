//! A minimal walker over raw BSON: each element as its type byte, key and
//! value bytes, without decoding or validating the value.
//!
//! The diff compares values by their bytes (both sides are serializer
//! output, so equal values have equal bytes) and decodes only what changed,
//! through `bson`, which validates it then.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::spec::ElementType;
use mongodb::bson::Bson;

use crate::error::Error;

/// One element of a document or array.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Elem<'a> {
    pub tag: u8,
    pub key: &'a [u8],
    /// The value's encoding (for a document or array: its whole bytes).
    pub value: &'a [u8],
}

impl<'a> Elem<'a> {
    /// Same type, same bytes: the same value (a NaN equals itself).
    pub fn same(&self, other: &Elem<'_>) -> bool {
        self.tag == other.tag && crate::codec::text::same(self.value, other.value)
    }

    pub fn is_document(&self) -> bool {
        self.tag == ElementType::EmbeddedDocument as u8
    }

    pub fn is_array(&self) -> bool {
        self.tag == ElementType::Array as u8
    }

    pub fn key_str(&self) -> Result<&'a str, Error> {
        match crate::codec::text::utf8(self.key) {
            Some(key) => Ok(key),
            None => std::str::from_utf8(self.key).map_err(raw_error),
        }
    }

    /// The value decoded by `bson` (validated).
    pub fn decode(self) -> Result<Bson, Error> {
        match self.scalar() {
            Some(value) => Ok(value),
            None if self.is_array() => self.decode_array(),
            None if self.is_document() => self.decode_document(),
            None => self.decode_with_bson(),
        }
    }

    /// A document, its elements decoded one by one (as
    /// [`decode_array`](Elem::decode_array)) into a document whose keys
    /// are inserted in order: what `bson` decodes, without copying the
    /// bytes into a document of their own first and converting every
    /// value through its generic path. A key that is not UTF-8 is left to
    /// `bson` (and its error).
    fn decode_document(self) -> Result<Bson, Error> {
        let mut doc = crate::codec::new_document::new_document();
        let mut walk = Walk::new(self.value)?;
        while let Some(e) = walk.next_elem()? {
            let Some(key) = crate::codec::text::utf8(e.key) else {
                return self.decode_with_bson();
            };
            doc.insert(key, e.decode()?);
        }
        Ok(Bson::Document(doc))
    }

    /// An array, its elements decoded one by one into a vector sized up
    /// front: `bson` grows the vector as it reads (a large array is then
    /// copied several times, through fresh pages) after copying the
    /// array's bytes. Equal to what `bson` decodes; its element keys are
    /// ignored, as `bson` ignores them.
    fn decode_array(self) -> Result<Bson, Error> {
        let mut walk = Walk::new(self.value)?;
        let mut n = 0;
        while walk.next_elem()?.is_some() {
            n += 1;
        }
        let mut values = Vec::with_capacity(n);
        let mut walk = Walk::new(self.value)?;
        while let Some(e) = walk.next_elem()? {
            values.push(e.decode()?);
        }
        Ok(Bson::Array(values))
    }

    /// The common scalars read directly, equal to what `bson` decodes them
    /// to; `None` for anything else, and for whatever `bson` would check
    /// and might refuse (a string whose length, NUL or UTF-8 is wrong, a
    /// boolean byte other than 0 or 1): `bson` then does it.
    fn scalar(&self) -> Option<Bson> {
        let v = self.value;
        let eight = || v.try_into().ok().map(i64::from_le_bytes);
        Some(match self.tag {
            0x01 => Bson::Double(f64::from_le_bytes(v.try_into().ok()?)),
            0x02 => {
                let len = i32::from_le_bytes(v.get(..4)?.try_into().ok()?);
                let text = v.get(4..)?;
                if len < 1 || len as usize != text.len() || text[text.len() - 1] != 0 {
                    return None;
                }
                Bson::String(crate::codec::text::utf8(&text[..text.len() - 1])?.to_owned())
            }
            0x07 => Bson::ObjectId(mongodb::bson::oid::ObjectId::from_bytes(v.try_into().ok()?)),
            0x08 => match v {
                [0] => Bson::Boolean(false),
                [1] => Bson::Boolean(true),
                _ => return None,
            },
            0x09 => Bson::DateTime(mongodb::bson::DateTime::from_millis(eight()?)),
            0x0A => Bson::Null,
            0x10 => Bson::Int32(i32::from_le_bytes(v.try_into().ok()?)),
            0x12 => Bson::Int64(eight()?),
            _ => return None,
        })
    }

    /// The value decoded by `bson` itself.
    pub(super) fn decode_with_bson(self) -> Result<Bson, Error> {
        // A one-element document around the value, read back by `bson`.
        let len = 4 + 1 + 1 + self.value.len() + 1;
        let mut bytes = Vec::with_capacity(len);
        bytes.extend_from_slice(&(len as i32).to_le_bytes());
        bytes.push(self.tag);
        bytes.push(0);
        bytes.extend_from_slice(self.value);
        bytes.push(0);
        let doc = RawDocumentBuf::from_bytes(bytes).map_err(raw_error)?;
        let (_, value) = doc
            .iter()
            .next()
            .ok_or_else(|| raw_error("empty element"))?
            .map_err(raw_error)?;
        Bson::try_from(value).map_err(raw_error)
    }

    /// `_id` of an embedded document.
    pub fn id(&self) -> Option<Elem<'a>> {
        if !self.is_document() {
            return None;
        }
        elements(self.value)
            .ok()?
            .into_iter()
            .find(|e| e.key == b"_id")
    }
}

fn malformed() -> Error {
    raw_error("element exceeds its document")
}

#[inline]
fn read_i32(bytes: &[u8], at: usize) -> Result<usize, Error> {
    let b = bytes.get(at..at + 4).ok_or_else(malformed)?;
    let n = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    usize::try_from(n).map_err(|_| raw_error("negative length"))
}

fn cstring_len(bytes: &[u8], at: usize) -> Result<usize, Error> {
    let rest = bytes.get(at..).ok_or_else(malformed)?;
    rest.iter()
        .position(|&b| b == 0)
        .ok_or_else(|| raw_error("unterminated string"))
}

/// Length of the value of type `tag` starting at `at`.
fn value_len(bytes: &[u8], tag: u8, at: usize) -> Result<usize, Error> {
    Ok(match tag {
        0x06 | 0x0A | 0x7F | 0xFF => 0, // undefined, null, max/min key
        0x08 => 1,                      // bool
        0x10 => 4,                      // int32
        0x01 | 0x09 | 0x11 | 0x12 => 8, // double, date, timestamp, int64
        0x07 => 12,                     // ObjectId
        0x13 => 16,                     // decimal128
        0x02 | 0x0D | 0x0E => 4 + read_i32(bytes, at)?, // string, code, symbol
        0x03 | 0x04 | 0x0F => read_i32(bytes, at)?, // document, array, code w/ scope
        0x05 => 4 + 1 + read_i32(bytes, at)?, // binary
        0x0B => {
            // regex: pattern and options, two C strings
            let pattern = cstring_len(bytes, at)?;
            pattern + 1 + cstring_len(bytes, at + pattern + 1)? + 1
        }
        0x0C => 4 + read_i32(bytes, at)? + 12, // DBPointer
        other => return Err(raw_error(format!("invalid tag: {other}"))),
    })
}

/// The elements of the document (or array) `doc`, in order.
pub(crate) fn elements(doc: &[u8]) -> Result<Vec<Elem<'_>>, Error> {
    let mut walk = Walk::new(doc)?;
    // A guess that avoids regrowing for small documents.
    let mut out = Vec::with_capacity((doc.len() / 8).clamp(4, 64));
    while let Some(elem) = walk.next_elem()? {
        out.push(elem);
    }
    Ok(out)
}

/// A walk of `doc` past the elements of `prefix` (a document), when
/// `doc`'s elements start with all of them byte for byte (keys included,
/// at the same offsets): found by one comparison of the bytes both share,
/// without reading their elements. `prefix` must be well formed (a
/// serialization); `doc`'s length and end are checked as by any walk.
/// `None` otherwise.
pub(crate) fn after_prefix<'a>(doc: &'a [u8], prefix: &[u8]) -> Option<Walk<'a>> {
    // `prefix` is its length, its elements, and a NUL.
    let end = prefix.len().checked_sub(1).filter(|&end| end >= 4)?;
    if doc.len() < prefix.len() || doc.get(4..end)? != prefix.get(4..end)? {
        return None;
    }
    let mut walk = Walk::new(doc).ok()?;
    walk.skip_to(end);
    Some(walk)
}

/// The elements of a document one at a time, without collecting them:
/// what [`elements`] returns, in the same order, with the same errors.
#[derive(Clone)]
pub(crate) struct Walk<'a> {
    /// The document up to (not including) its closing NUL.
    body: &'a [u8],
    at: usize,
}

impl<'a> Walk<'a> {
    pub fn new(doc: &'a [u8]) -> Result<Self, Error> {
        let len = read_i32(doc, 0)?;
        if len != doc.len() || len < 5 || doc[len - 1] != 0 {
            return Err(raw_error("bad document length"));
        }
        Ok(Walk {
            body: &doc[..len - 1],
            at: 4,
        })
    }

    /// The next element; `None` at the end of the document.
    #[inline]
    pub fn next_elem(&mut self) -> Result<Option<Elem<'a>>, Error> {
        let Some((&tag, rest)) = self.body.get(self.at..).and_then(<[u8]>::split_first) else {
            return Ok(None);
        };
        let key_len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| raw_error("unterminated string"))?;
        let key = &rest[..key_len];
        let after_key = &rest[key_len + 1..];
        let size = match tag {
            // The fixed sizes of `value_len`, without its bounds checks.
            0x08 => 1,
            0x10 => 4,
            0x01 | 0x09 | 0x11 | 0x12 => 8,
            0x07 => 12,
            // A string (the usual array element), its length read here.
            0x02 => 4 + read_i32(after_key, 0)?,
            _ => value_len(after_key, tag, 0)?,
        };
        let value = after_key.get(..size).ok_or_else(malformed)?;
        self.at += 1 + key_len + 1 + size;
        Ok(Some(Elem { tag, key, value }))
    }

    /// Where the next element starts, as an offset into the document.
    pub fn at(&self) -> usize {
        self.at
    }

    /// The bytes from offset `start` (where an element starts) to the
    /// next element: the whole elements walked since.
    pub fn since(&self, start: usize) -> &'a [u8] {
        &self.body[start..self.at]
    }

    /// Moves past the elements before offset `at`, which must be where an
    /// element starts (or the end), as another walk over the same bytes
    /// found it.
    pub fn skip_to(&mut self, at: usize) {
        self.at = at;
    }
}

/// The bytes of the one element of `doc` (type, key and value): what an
/// element written alone is compared with in tests.
#[cfg(test)]
pub(crate) fn only_element(doc: &RawDocumentBuf) -> Vec<u8> {
    let bytes = doc.as_bytes();
    bytes[4..bytes.len() - 1].to_vec()
}

/// How many leading bytes `a` and `b` share.
pub(crate) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 16;
    let chunk = |s: &[u8], i: usize| {
        let bytes: [u8; CHUNK] = s[i..i + CHUNK].try_into().unwrap_or_default();
        u128::from_le_bytes(bytes)
    };
    // Whole blocks first, compared by `memcmp` (wide vector compares);
    // then 16 bytes at a time inside the block that differs.
    const BLOCK: usize = 1024;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i + CHUNK <= n {
        let diff = chunk(a, i) ^ chunk(b, i);
        if diff != 0 {
            // Little-endian: the lowest differing bit is in the first differing byte.
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += CHUNK;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Finds elements of one document by key, each key resolving to its first
/// occurrence (as `RawDocument::get` does), in constant time per lookup
/// for large documents: a 20,000-key map is looked up through a hash
/// table, a small struct by a scan that is cheaper than building one.
pub(crate) struct Keys<'a> {
    elems: &'a [Elem<'a>],
    table: Option<HashMap<&'a [u8], usize, BuildHasherDefault<Fnv>>>,
}

/// FNV-1a: keys are short and not chosen by an attacker who could flood a
/// table built for one diff, so a cheap hash beats SipHash here.
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Up to this many elements a linear scan beats hashing.
const SCAN_LIMIT: usize = 16;

impl<'a> Keys<'a> {
    pub fn new(elems: &'a [Elem<'a>]) -> Self {
        let table = (elems.len() > SCAN_LIMIT).then(|| {
            let mut table = HashMap::with_capacity_and_hasher(elems.len(), Default::default());
            for (i, e) in elems.iter().enumerate() {
                table.entry(e.key).or_insert(i);
            }
            table
        });
        Keys { elems, table }
    }

    /// The index of the first element with this key.
    pub fn first(&self, key: &[u8]) -> Option<usize> {
        match &self.table {
            Some(table) => table.get(key).copied(),
            None => self.elems.iter().position(|e| e.key == key),
        }
    }
}

/// A malformed raw document, as odm's error.
pub(crate) fn raw_error(e: impl std::fmt::Display) -> Error {
    Error::from(
        <crate::bson_release::SerError as serde::ser::Error>::custom(format_args!(
            "malformed BSON: {e}"
        )),
    )
}
