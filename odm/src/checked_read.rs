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
use crate::diff::{Elem, Walk};
use crate::error::Error;
use crate::version_key::{self, MAX_EXACT_DOUBLE};

/// The first top-level element of `raw` under `key`; `Err` if the walk
/// fails (never for a document `rawde` decoded).
fn first<'a>(raw: &'a RawDocument, key: &str) -> Result<Option<Elem<'a>>, Error> {
    let mut walk = Walk::new(raw.as_bytes())?;
    while let Some(elem) = walk.next_elem()? {
        if elem.key == key.as_bytes() {
            return Ok(Some(elem));
        }
    }
    Ok(None)
}

/// [`version_key::read`] of a document `rawde` decoded.
pub(crate) fn version(raw: &RawDocument, key: Option<&str>) -> Result<Option<i64>, String> {
    let Some(name) = key else {
        return Ok(None);
    };
    let found = match first(raw, name) {
        Ok(found) => found,
        Err(_) => return version_key::read(raw, key),
    };
    let Some(elem) = found else {
        return Ok(None);
    };
    let version = match (elem.tag, elem.value.len()) {
        (0x10, 4) => Some(i64::from(i32::from_le_bytes(
            elem.value.try_into().unwrap_or_default(),
        ))),
        (0x12, 8) => Some(i64::from_le_bytes(
            elem.value.try_into().unwrap_or_default(),
        )),
        (0x01, 8) => {
            let v = f64::from_le_bytes(elem.value.try_into().unwrap_or_default());
            let exact = v.is_finite() && v.fract() == 0.0 && (0.0..=MAX_EXACT_DOUBLE).contains(&v);
            exact.then_some(v as i64)
        }
        _ => None,
    };
    match version {
        Some(v) if v >= 0 => Ok(Some(v)),
        // Refused: the message is `read`'s.
        _ => version_key::read(raw, key),
    }
}

/// [`codec::read_id`] of a document `rawde` decoded.
pub(crate) fn id(raw: &RawDocument) -> Result<Bson, Error> {
    match first(raw, "_id") {
        Ok(Some(elem)) => match elem.decode() {
            Ok(id) => Ok(id),
            Err(_) => codec::read_id(raw),
        },
        Ok(None) => Ok(Bson::Null),
        Err(_) => codec::read_id(raw),
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
            let raw =
                RawDocumentBuf::from_document(&doc! { "_id": 1, "a": "x", "__v": value.clone() })
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
            let raw =
                RawDocumentBuf::from_document(&doc! { "x": 1, "_id": value.clone() }).unwrap();
            assert_eq!(
                id(&raw).unwrap(),
                codec::read_id(&raw).unwrap(),
                "{value:?}"
            );
        }
        assert_eq!(id(&rawdoc! { "x": 1 }).unwrap(), Bson::Null);
    }
}
