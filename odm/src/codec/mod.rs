//! Stored BSON to a tracked value and back.

pub(crate) mod array;
pub(crate) mod checked_read;
pub(crate) mod new_document;
#[cfg(test)]
pub(crate) mod random_values;
pub(crate) mod rawde;
pub(crate) mod rawser;
pub(crate) mod same_type;
pub(crate) mod scan;
#[cfg(test)]
mod scan_tests;
pub(crate) mod strict;
pub(crate) mod text;
pub(crate) mod version_key;

use std::borrow::Cow;

use mongodb::bson::raw::{RawDocument, RawDocumentBuf};
use mongodb::bson::{Bson, Document as BsonDocument};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::codec::scan::raw_error;
use crate::codec::strict::Strict;
use crate::error::{DeserializeError, Error};

/// A value as loaded: the value, its `_id`, the stored version, and the
/// stored document (kept until the snapshot is taken, to find the fields
/// the store lacks).
pub(crate) struct Loaded<T> {
    pub value: T,
    pub id: Bson,
    pub version: Option<i64>,
    pub stored: RawDocumentBuf,
}

/// Serializes a value to raw BSON.
pub(crate) fn to_raw<T: Serialize>(value: &T) -> Result<RawDocumentBuf, Error> {
    to_raw_sized(value, 0)
}

/// Serializes a value to raw BSON, expecting about `capacity` bytes. The
/// fast path writes exactly what `bson` would; whatever it does not cover
/// (and every error) goes through `bson` itself.
pub(crate) fn to_raw_sized<T: Serialize>(
    value: &T,
    capacity: usize,
) -> Result<RawDocumentBuf, Error> {
    if let Some(bytes) = crate::codec::rawser::to_vec(value, capacity) {
        if let Ok(raw) = RawDocumentBuf::from_bytes(bytes) {
            return Ok(raw);
        }
    }
    Ok(crate::bson_release::to_raw_document_buf(value)?)
}

/// A stored counter (a token, a fence) as an integer: an Int32, an Int64
/// or an integral double, as other code may have written it.
pub(crate) fn integer(value: &Bson) -> Option<i64> {
    match value {
        Bson::Int64(n) => Some(*n),
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Double(n) if n.fract() == 0.0 => Some(*n as i64),
        _ => None,
    }
}

/// The `_id` of a stored or serialized document (`Null` when absent).
pub(crate) fn read_id(raw: &RawDocument) -> Result<Bson, Error> {
    match raw.get("_id").map_err(raw_error)? {
        Some(id) => Bson::try_from(id).map_err(raw_error),
        None => Ok(Bson::Null),
    }
}

/// Decodes a stored document (the fast path of `rawde`, else `bson`,
/// whose result it equals). The snapshot is taken later, by serializing the
/// value again before its first change (see `Doc`), so fields the type does
/// not know (the version key among them), numeric widths and
/// `#[serde(default)]` fields missing from the store are never mistaken for
/// changes, and a document that is only read never pays for it.
///
/// The value never sees the top-level version key, and a stored version
/// that is not a non-negative integer is refused (see `version_key`).
pub(crate) fn load<T: DeserializeOwned>(
    stored: RawDocumentBuf,
    collection: &str,
    key: Option<&'static str>,
) -> Result<Loaded<T>, Error> {
    let fast: Fast<T> = |bytes, skip| rawde::from_slice_seeing::<T>(bytes, skip);
    load_with(stored, collection, key, fast)
}

/// The fast path's decoding of a stored document (`bytes`, without the
/// `skip` key): `None` leaves it to `bson`.
pub(crate) type Fast<T> =
    for<'a> fn(&'a [u8], Option<&'static str>) -> Option<(T, rawde::Seen<'a>)>;

/// [`load`], with `fast` as the fast path (an enum model decodes the
/// variant its stored kind names, see `schema::kind`); its result must
/// equal `bson`'s.
pub(crate) fn load_with<T: DeserializeOwned>(
    stored: RawDocumentBuf,
    collection: &str,
    key: Option<&'static str>,
    fast: Fast<T>,
) -> Result<Loaded<T>, Error> {
    let raw: &RawDocument = &stored;
    let version_error = |message| {
        Error::Deserialize(Box::new(DeserializeError {
            collection: collection.to_string(),
            id: read_id(raw).unwrap_or(Bson::Null),
            path: key.unwrap_or_default().to_string(),
            message,
        }))
    };
    // The fast path first: a document it decodes is well formed, so its
    // version and id are read by one plain walk (`checked_read`), with
    // the same results and errors as below.
    if let Some((value, seen)) = fast(raw.as_bytes(), key) {
        // A struct's decoding saw the version on its way; else walk again.
        let found = match seen {
            rawde::Seen::Found(tag, bytes) => Some(Some((tag, bytes))),
            rawde::Seen::Absent => Some(None),
            rawde::Seen::Unknown => None,
        };
        let version = match found {
            Some(found) => checked_read::version_found(raw, key, Some(found)),
            None => checked_read::version(raw, key),
        }
        .map_err(version_error)?;
        return Ok(Loaded {
            value,
            id: checked_read::id(raw)?,
            version,
            stored,
        });
    }
    let version = version_key::read(raw, key).map_err(version_error)?;
    let value: T = match decode(raw, key) {
        Ok(value) => value,
        Err((hidden, e)) => return Err(deserialize_error::<T>(&hidden, collection, e.to_string())),
    };
    Ok(Loaded {
        value,
        id: read_id(raw)?,
        version,
        stored,
    })
}

/// The value of a stored document, without the top-level version key and
/// fence: the fast path of `rawde`, else `bson` (through `Strict`), whose
/// result it equals. On failure, the document `bson` read and its error.
pub(crate) fn decode<'a, T: DeserializeOwned>(
    raw: &'a RawDocument,
    key: Option<&'static str>,
) -> Result<T, (Cow<'a, RawDocument>, crate::bson_release::DeError)> {
    if let Some(value) = crate::codec::rawde::from_slice(raw.as_bytes(), key) {
        return Ok(value);
    }
    let hidden = version_key::hidden(raw, key);
    match crate::bson_release::from_slice::<Strict<T>>(hidden.as_bytes()) {
        Ok(Strict(value)) => Ok(value),
        Err(e) => Err((hidden, e)),
    }
}

/// The slow path, taken only on failure: decode again while tracking the
/// path, so the error names the failing field.
#[cold]
pub(crate) fn deserialize_error<T: DeserializeOwned>(
    raw: &RawDocument,
    collection: &str,
    fast: String,
) -> Error {
    let id = read_id(raw).unwrap_or(Bson::Null);
    let (mut path, message) = match BsonDocument::try_from(raw) {
        Ok(doc) => {
            let de = mongodb::bson::Deserializer::new(Bson::Document(doc));
            match serde_path_to_error::deserialize::<_, Strict<T>>(de) {
                Ok(_) => (String::new(), fast),
                Err(e) => (
                    dotted(&e.path().to_string()),
                    crate::bson_release::de_message(e.inner()),
                ),
            }
        }
        Err(e) => (String::new(), e.to_string()),
    };
    if path == "." {
        path.clear();
    }
    if let Some(field) = missing_field(&message) {
        if path.is_empty() {
            path = field.to_string();
        } else {
            path = format!("{path}.{field}");
        }
    }
    Error::Deserialize(Box::new(DeserializeError {
        collection: collection.to_string(),
        id,
        path,
        message,
    }))
}

/// `comments[1].text` -> `comments.1.text`, the BSON path form.
fn dotted(path: &str) -> String {
    path.replace('[', ".").replace(']', "")
}

/// The field serde names in "missing field `x`".
fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next()
}
