//! The version and `_id` of a stored document that `rawde` has just
//! decoded, read by one plain walk of its top-level elements.
//!
//! `rawde` accepts a document only after checking at least what `bson`
//! checks of every element, so `RawDocument::get` could not fail on it:
//! its first element under a key is what `get` returns. These readers
//! give the same results as [`version_key::read`] and [`codec::read_id`]
//! on such a document, without `bson`'s per-element conversions; whatever
//! they do not read directly (a refused version, an `_id` that is not a
//! common scalar) goes back to those functions, so messages stay theirs.

use mongodb::bson::raw::RawDocument;
use mongodb::bson::Bson;

use crate::codec;
use crate::codec::scan::Elem;
use crate::codec::version_key::{self, MAX_EXACT_DOUBLE};
use crate::error::Error;

/// The first top-level element of `raw` under `key`, as its type and value
/// bytes; `None` when the walk meets a type it does not size here or
/// bytes that do not fit (never for a document `rawde` decoded; the
/// callers then use the old readers).
fn first<'a>(raw: &'a RawDocument, key: &str) -> Option<Option<(u8, &'a [u8])>> {
    let doc = raw.as_bytes();
    let body = doc.get(4..doc.len().checked_sub(1)?)?;
    let key = key.as_bytes();
    let length = |at: usize| -> Option<usize> {
        let n = i32::from_le_bytes(body.get(at..at + 4)?.try_into().ok()?);
        usize::try_from(n).ok()
    };
    let mut at = 0;
    while let Some(&tag) = body.get(at) {
        let rest = &body[at + 1..];
        let key_len = rest.iter().position(|&b| b == 0)?;
        let value_at = at + 1 + key_len + 1;
        let size = match tag {
            0x10 => 4,
            0x01 | 0x09 | 0x11 | 0x12 => 8,
            0x07 => 12,
            0x08 => 1,
            0x06 | 0x0A | 0x7F | 0xFF => 0,
            0x13 => 16,
            0x02 | 0x0D | 0x0E => 4 + length(value_at)?,
            0x03 | 0x04 => length(value_at)?,
            _ => return None,
        };
        let value = body.get(value_at..value_at.checked_add(size)?)?;
        if &rest[..key_len] == key {
            return Some(Some((tag, value)));
        }
        at = value_at + size;
    }
    Some(None)
}

/// [`version_key::read`] of a document `rawde` decoded.
pub(crate) fn version(raw: &RawDocument, key: Option<&str>) -> Result<Option<i64>, String> {
    let Some(name) = key else {
        return Ok(None);
    };
    version_found(raw, key, first(raw, name))
}

/// [`version`], given what a walk found under the key: `None` when it
/// could not tell, else the first element under it, if any.
pub(crate) fn version_found(
    raw: &RawDocument,
    key: Option<&str>,
    found: Option<Option<(u8, &[u8])>>,
) -> Result<Option<i64>, String> {
    if key.is_none() {
        return Ok(None);
    }
    let Some(found) = found else {
        return version_key::read(raw, key);
    };
    let Some((tag, value)) = found else {
        return Ok(None);
    };
    match integer(tag, value) {
        Some(v) if v >= 0 => Ok(Some(v)),
        // Refused: the message is `read`'s.
        _ => version_key::read(raw, key),
    }
}

/// An Int32, an Int64 or an exact integral double, from its type and
/// value bytes.
fn integer(tag: u8, value: &[u8]) -> Option<i64> {
    match (tag, value.len()) {
        (0x10, 4) => Some(i64::from(i32::from_le_bytes(
            value.try_into().unwrap_or_default(),
        ))),
        (0x12, 8) => Some(i64::from_le_bytes(value.try_into().unwrap_or_default())),
        (0x01, 8) => {
            let v = f64::from_le_bytes(value.try_into().unwrap_or_default());
            let exact = v.is_finite() && v.fract() == 0.0 && (0.0..=MAX_EXACT_DOUBLE).contains(&v);
            exact.then_some(v as i64)
        }
        _ => None,
    }
}

/// The non-negative integer stored under `key` (the schema version), by
/// one plain walk: `Some(None)` when there is none; `None` when the walk
/// cannot tell or the value is not one (the caller then reads it with
/// `version_key::read_named`, whose message it keeps).
pub(crate) fn counter(raw: &RawDocument, key: &str) -> Option<Option<i64>> {
    match first(raw, key)? {
        None => Some(None),
        Some((tag, value)) => integer(tag, value).filter(|v| *v >= 0).map(Some),
    }
}

/// [`codec::read_id`] of a document `rawde` decoded.
pub(crate) fn id(raw: &RawDocument) -> Result<Bson, Error> {
    match first(raw, "_id") {
        Some(Some((tag, value))) => {
            let elem = Elem {
                tag,
                key: b"_id",
                value,
            };
            match elem.decode() {
                Ok(id) => Ok(id),
                Err(_) => codec::read_id(raw),
            }
        }
        Some(None) => Ok(Bson::Null),
        None => codec::read_id(raw),
    }
}

#[cfg(test)]
mod tests {
    use mongodb::bson::oid::ObjectId;
    use mongodb::bson::{doc, rawdoc, RawDocumentBuf};

    use super::*;

    #[test]
    fn versions_read_as_version_key_reads_them() {
        let values = [
            Bson::Int32(0),
            Bson::Int32(7),
            Bson::Int32(-1),
            Bson::Int64(1 << 40),
            Bson::Int64(-5),
            Bson::Double(3.0),
            Bson::Double(3.5),
            Bson::Double(-0.0),
            Bson::Double(-1.0),
            Bson::Double(f64::NAN),
            Bson::Double(f64::INFINITY),
            Bson::Double(MAX_EXACT_DOUBLE),
            Bson::Double(MAX_EXACT_DOUBLE * 2.0),
            Bson::String("3".into()),
            Bson::Null,
            Bson::Boolean(true),
        ];
        for value in values {
            let raw = RawDocumentBuf::try_from(&doc! { "_id": 1, "a": "x", "__v": value.clone() })
                .unwrap();
            assert_eq!(
                version(&raw, Some("__v")),
                version_key::read(&raw, Some("__v")),
                "{value:?}"
            );
        }
        let raw = rawdoc! { "_id": 1, "__v": 2, "__v": 3 };
        assert_eq!(version(&raw, Some("__v")), Ok(Some(2)));
        assert_eq!(version(&raw, Some("rev")), Ok(None));
        assert_eq!(version(&raw, None), Ok(None));
    }

    #[test]
    fn ids_read_as_read_id_reads_them() {
        let ids = [
            Bson::ObjectId(ObjectId::from_bytes([9; 12])),
            Bson::Int64(7),
            Bson::String("key".into()),
            Bson::Document(doc! { "a": 1, "b": [1, 2] }),
            Bson::Decimal128("1.5".parse().unwrap()),
        ];
        for value in ids {
            let raw = RawDocumentBuf::try_from(&doc! { "x": 1, "_id": value.clone() }).unwrap();
            assert_eq!(
                id(&raw).unwrap(),
                codec::read_id(&raw).unwrap(),
                "{value:?}"
            );
        }
        assert_eq!(id(&rawdoc! { "x": 1 }).unwrap(), Bson::Null);
    }
}
