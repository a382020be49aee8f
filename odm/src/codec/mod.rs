//! Stored BSON to a tracked value and back.

pub(crate) mod array;
pub(crate) mod checked_read;
pub(crate) mod keys;
pub(crate) mod new_document;
pub(crate) mod offsets;
#[cfg(test)]
pub(crate) mod random_values;
pub(crate) mod rawde;
pub(crate) mod rawser;
pub mod same;
pub(crate) mod same_type;
pub(crate) mod scan;
#[cfg(test)]
mod scan_tests;
pub mod sealed;
pub(crate) mod strict;
pub mod tail;
pub(crate) mod text;
pub(crate) mod upgrade;
pub(crate) mod version_key;

use std::borrow::Cow;

use mongodb::bson::raw::{RawDocument, RawDocumentBuf};
use mongodb::bson::{Bson, Document as BsonDocument};
use serde::de::DeserializeOwned;
use serde::Serialize;

pub(crate) use crate::codec::keys::Hidden;
use crate::codec::scan::raw_error;
use crate::codec::strict::Strict;
pub(crate) use crate::codec::upgrade::Layout;
use crate::codec::upgrade::Steps;
use crate::error::{DeserializeError, Error};

/// A value as loaded: the value, its `_id`, the stored version, and the
/// stored document (kept until the snapshot is taken, to find the fields
/// the store lacks).
pub(crate) struct Loaded<T> {
    pub value: T,
    pub id: Bson,
    pub version: Option<i64>,
    /// The document the value was decoded from: the stored one, or for a
    /// document upgraded on load the upgraded one (the stored one is then
    /// [`Upgraded::original`]).
    pub stored: RawDocumentBuf,
    /// The schema version as stored (`None`: the document has no schema
    /// version key, or the model declares no schema version).
    pub schema: Option<i64>,
    /// The upgrade of an older document, made in memory on load.
    pub upgraded: Option<Upgraded>,
}

/// A stored document at an older schema version, upgraded on load.
pub(crate) struct Upgraded {
    /// The schema version it was stored at (0 when it had none).
    pub from: u32,
    /// The document as stored.
    pub original: RawDocumentBuf,
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

/// [`to_raw_sized`], with the offsets of its top-level elements when the
/// fast path wrote it (else not known): a snapshot's first patch then
/// reads no element it does not write.
pub(crate) fn to_raw_noting<T: Serialize>(
    value: &T,
    capacity: usize,
) -> Result<(RawDocumentBuf, offsets::Offsets), Error> {
    match noted(crate::codec::rawser::noting::to_vec_noting(value, capacity)) {
        Some(noted) => Ok(noted),
        None => Ok((to_raw_sized(value, capacity)?, offsets::Offsets::new())),
    }
}

/// A document the fast path wrote, with the offsets it noted.
fn noted(written: Option<(Vec<u8>, Vec<u32>)>) -> Option<(RawDocumentBuf, offsets::Offsets)> {
    let (bytes, starts) = written?;
    let raw = RawDocumentBuf::from_bytes(bytes).ok()?;
    Some((raw, offsets::Offsets::of_starts(starts)))
}

/// [`to_raw_sized`], with the top-level fields `splice` marks unchanged
/// copied from its earlier bytes instead of serialized: the same bytes
/// (see `rawser::splice`), with the offsets of their elements when the
/// splice wrote them (else not known).
pub(crate) fn to_raw_spliced<T: Serialize>(
    value: &T,
    capacity: usize,
    splice: &crate::codec::rawser::splice::Splice<'_>,
) -> Result<(RawDocumentBuf, offsets::Offsets), Error> {
    if splice.unchanged.any() {
        let spliced = crate::codec::rawser::splice::to_vec_noting(value, capacity, splice);
        if let Some(spliced) = noted(spliced) {
            return Ok(spliced);
        }
    }
    to_raw_noting(value, capacity)
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
/// The value never sees odm's top-level keys (`layout.hidden`), and a
/// stored version that is not a non-negative integer is refused (see
/// `version_key`). Every read that builds a model's value comes here (or
/// to [`load_value`]): for a model with a schema version, a document
/// stored at an older one is upgraded first (see `upgrade`), so every
/// read sees the model's schema.
pub(crate) fn load<T: DeserializeOwned>(
    stored: RawDocumentBuf,
    collection: &str,
    layout: &Layout,
) -> Result<Loaded<T>, Error> {
    let fast: Fast<T> = |bytes, hidden| rawde::from_slice_seeing::<T>(bytes, hidden);
    load_with(stored, collection, layout, fast)
}

/// The fast path's decoding of a stored document (`bytes`, without odm's
/// `hidden` keys): `None` leaves it to `bson`.
pub(crate) type Fast<T> = for<'a> fn(&'a [u8], Hidden) -> Option<(T, rawde::Seen<'a>)>;

/// [`load`], with `fast` as the fast path (an enum model decodes the
/// variant its stored kind names, see `schema::kind`); its result must
/// equal `bson`'s.
pub(crate) fn load_with<T: DeserializeOwned>(
    stored: RawDocumentBuf,
    collection: &str,
    layout: &Layout,
    fast: Fast<T>,
) -> Result<Loaded<T>, Error> {
    let key = layout.hidden.version;
    let mut schema = None;
    if let Some(version) = &layout.schema {
        schema = upgrade::read_checked(&stored, version, collection)?;
        if let Some(from) = upgrade::older(schema, version) {
            return load_upgraded(stored, collection, layout, version, schema, from);
        }
    }
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
    if let Some((value, seen)) = fast(raw.as_bytes(), layout.hidden) {
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
            schema,
            upgraded: None,
        });
    }
    let version = version_key::read(raw, key).map_err(version_error)?;
    let value: T = match decode(raw, layout.hidden) {
        Ok(value) => value,
        Err((hidden, e)) => return Err(deserialize_error::<T>(&hidden, collection, e.to_string())),
    };
    Ok(Loaded {
        value,
        id: read_id(raw)?,
        version,
        stored,
        schema,
        upgraded: None,
    })
}

/// [`load`] of a document stored at schema version `from`, older than
/// `schema`'s: its version and `_id` read from it as stored, then the
/// value decoded from it as upgraded.
fn load_upgraded<T: DeserializeOwned>(
    original: RawDocumentBuf,
    collection: &str,
    layout: &Layout,
    schema: &Steps,
    stored_schema: Option<i64>,
    from: u32,
) -> Result<Loaded<T>, Error> {
    let key = layout.hidden.version;
    let id = read_id(&original)?;
    let version = version_key::read(&original, key).map_err(|message| {
        Error::Deserialize(Box::new(DeserializeError {
            collection: collection.to_string(),
            id: id.clone(),
            path: key.unwrap_or_default().to_string(),
            message,
        }))
    })?;
    let stored = upgrade::upgrade(&original, schema, layout.hidden, from, collection, &id)?;
    let value = decode_upgraded::<T>(&stored, collection, layout.hidden, from)?;
    Ok(Loaded {
        value,
        id,
        version,
        stored,
        schema: stored_schema,
        upgraded: Some(Upgraded { from, original }),
    })
}

/// The value of a document upgraded from schema version `from`; one that
/// does not decode names its field, and says it was upgraded.
fn decode_upgraded<V: DeserializeOwned>(
    upgraded: &RawDocument,
    collection: &str,
    hidden: Hidden,
    from: u32,
) -> Result<V, Error> {
    decode(upgraded, hidden).map_err(|(seen, e)| {
        let mut error = deserialize_error::<V>(&seen, collection, e.to_string());
        if let Error::Deserialize(e) = &mut error {
            e.message = format!(
                "after the upgrade from schema version {from}: {}",
                e.message
            );
        }
        error
    })
}

/// A stored document as a plain value `V` (an untracked read): odm's keys
/// hidden from it and, for a model with a schema version, a document at an
/// older one upgraded first, as [`load`] does. A failure names the `_id`
/// and the field, as a tracked load does.
pub(crate) fn load_value<V: DeserializeOwned>(
    raw: &RawDocument,
    collection: &str,
    layout: &Layout,
) -> Result<V, Error> {
    if let Some(schema) = &layout.schema {
        let stored = upgrade::read_checked(raw, schema, collection)?;
        if let Some(from) = upgrade::older(stored, schema) {
            let id = read_id(raw)?;
            let upgraded = upgrade::upgrade(raw, schema, layout.hidden, from, collection, &id)?;
            return decode_upgraded(&upgraded, collection, layout.hidden, from);
        }
    }
    decode(raw, layout.hidden)
        .map_err(|(hidden, e)| deserialize_error::<V>(&hidden, collection, e.to_string()))
}

/// The value of a stored document, without odm's top-level keys (the
/// version key, the schema version key, the fence): the fast path of
/// `rawde`, else `bson` (through `Strict`), whose result it equals. On
/// failure, the document `bson` read and its error.
pub(crate) fn decode<'a, T: DeserializeOwned>(
    raw: &'a RawDocument,
    hidden: Hidden,
) -> Result<T, (Cow<'a, RawDocument>, crate::bson_release::DeError)> {
    if let Some(value) = crate::codec::rawde::from_slice(raw.as_bytes(), hidden) {
        return Ok(value);
    }
    let hidden = version_key::hidden(raw, hidden);
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
