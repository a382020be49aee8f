//! The one place that knows which bson release the driver exposes as
//! `mongodb::bson`: bson 2 (odm's default feature `bson-2`, the driver's
//! `compat-3-0-0`) or bson 3 (odm's feature `bson-3`, forwarding to the
//! driver's). Everything else in odm writes `mongodb::bson::..` items the
//! two releases share and calls these for the rest: the error types, the
//! serde entry points (renamed in bson 3), and raw document keys (a
//! `CStr` in bson 3).

use mongodb::bson::{Bson, RawBson, RawBsonRef, RawDocumentBuf};
use serde::de::{Deserialize, DeserializeOwned};
use serde::Serialize;

#[cfg(not(feature = "bson-3"))]
mod release {
    /// bson's error when deserializing.
    pub use mongodb::bson::de::Error as DeError;
    /// bson's error when serializing.
    pub use mongodb::bson::ser::Error as SerError;
}

#[cfg(feature = "bson-3")]
mod release {
    /// bson's error when serializing.
    pub use mongodb::bson::error::Error as SerError;
    /// bson's error when deserializing.
    pub use mongodb::bson::error::Error as DeError;
}

pub use release::{DeError, SerError};

/// The bson release odm is built against, for the tests.
#[cfg(test)]
pub(crate) const RELEASE: u32 = if cfg!(feature = "bson-3") { 3 } else { 2 };

/// `value` as a raw document, by bson's own serializer.
pub(crate) fn to_raw_document_buf<T: Serialize>(value: &T) -> Result<RawDocumentBuf, SerError> {
    #[cfg(not(feature = "bson-3"))]
    return mongodb::bson::to_raw_document_buf(value);
    #[cfg(feature = "bson-3")]
    return mongodb::bson::serialize_to_raw_document_buf(value);
}

/// A value read from the bytes of a document, by bson's own deserializer.
pub(crate) fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, DeError> {
    #[cfg(not(feature = "bson-3"))]
    return mongodb::bson::from_slice(bytes);
    #[cfg(feature = "bson-3")]
    return mongodb::bson::deserialize_from_slice(bytes);
}

/// A value read from a `Bson`.
pub(crate) fn from_bson<T: DeserializeOwned>(value: Bson) -> Result<T, DeError> {
    #[cfg(not(feature = "bson-3"))]
    return mongodb::bson::from_bson(value);
    #[cfg(feature = "bson-3")]
    return mongodb::bson::deserialize_from_bson(value);
}

/// Appends `key: value` to `doc`.
///
/// # Panics
/// When `key` holds a null byte (as bson's own `append` does).
pub(crate) fn append(doc: &mut RawDocumentBuf, key: &str, value: impl Into<RawBson>) {
    let value: RawBson = value.into();
    #[cfg(not(feature = "bson-3"))]
    doc.append(key, value);
    #[cfg(feature = "bson-3")]
    doc.append(cstr(key), value);
}

/// Appends `key: value` to `doc`, `value` borrowed.
pub(crate) fn append_ref(doc: &mut RawDocumentBuf, key: &str, value: RawBsonRef<'_>) {
    #[cfg(not(feature = "bson-3"))]
    doc.append_ref(key, value);
    #[cfg(feature = "bson-3")]
    doc.append(cstr(key), value);
}

#[cfg(feature = "bson-3")]
fn cstr(key: &str) -> &mongodb::bson::raw::CStr {
    <&mongodb::bson::raw::CStr>::try_from(key)
        .unwrap_or_else(|_| panic!("a document key holds a null byte: {key:?}"))
}

/// A raw document's key as text (a `&str` in bson 2, a `&CStr` in bson 3).
pub(crate) fn key_str<K: AsRef<str> + ?Sized>(key: &K) -> &str {
    key.as_ref()
}

/// A borrowed raw value, owned.
pub(crate) fn to_raw_bson(value: RawBsonRef<'_>) -> RawBson {
    #[cfg(not(feature = "bson-3"))]
    return value.to_raw_bson();
    #[cfg(feature = "bson-3")]
    return RawBson::from(value);
}

/// What a deserialization error says: serde's message (bson 3 wraps it in
/// a sentence of its own, which this unwraps), so the texts are the same
/// under both releases.
pub(crate) fn de_message(e: &DeError) -> String {
    #[cfg(not(feature = "bson-3"))]
    return e.to_string();
    #[cfg(feature = "bson-3")]
    return match &e.message {
        Some(message) => message.clone(),
        None => e.kind.to_string(),
    };
}

/// A serialization error as one sentence, the value it names hidden
/// unless `values`.
pub(crate) fn ser_text(
    e: &SerError,
    values: bool,
    f: &mut std::fmt::Formatter<'_>,
) -> std::fmt::Result {
    use std::fmt::Display;
    let hidden = |n: &dyn Display, f: &mut std::fmt::Formatter<'_>| {
        if values {
            n.fmt(f)
        } else {
            f.write_str("?")
        }
    };
    #[cfg(not(feature = "bson-3"))]
    {
        use mongodb::bson::ser::Error as Ser;
        match e {
            Ser::UnsignedIntegerExceededRange(n) => {
                f.write_str("the unsigned integer ")?;
                hidden(n, f)?;
                write!(f, " is larger than BSON's largest integer ({})", i64::MAX)
            }
            Ser::InvalidDocumentKey(key) => write!(
                f,
                "a map key must serialize as a string, not as {:?}",
                key.element_type()
            ),
            Ser::InvalidCString(key) => write!(f, "the key {key:?} holds a null byte"),
            other => other.fmt(f),
        }
    }
    #[cfg(feature = "bson-3")]
    {
        use mongodb::bson::error::ErrorKind;
        match &e.kind {
            ErrorKind::TooLargeUnsignedInteger { n, .. } => {
                f.write_str("the unsigned integer ")?;
                hidden(n, f)?;
                write!(f, " is larger than BSON's largest integer ({})", i64::MAX)
            }
            kind => match &e.message {
                Some(message) => f.write_str(message),
                None => kind.fmt(f),
            },
        }
    }
}

/// The serde entry points and raw-document calls the tests use, under the
/// names of bson 2 whichever release is built.
#[cfg(test)]
pub(crate) mod testing {
    use mongodb::bson::{Document, RawDocumentBuf};
    use serde::de::DeserializeOwned;
    use serde::Serialize;

    pub(crate) use super::{from_slice, to_raw_document_buf};
    use super::{DeError, SerError};

    pub(crate) fn to_vec<T: Serialize>(value: &T) -> Result<Vec<u8>, SerError> {
        #[cfg(not(feature = "bson-3"))]
        return mongodb::bson::to_vec(value);
        #[cfg(feature = "bson-3")]
        return mongodb::bson::serialize_to_vec(value);
    }

    pub(crate) fn to_document<T: Serialize + ?Sized>(value: &T) -> Result<Document, SerError> {
        #[cfg(not(feature = "bson-3"))]
        return mongodb::bson::to_document(value);
        #[cfg(feature = "bson-3")]
        return mongodb::bson::serialize_to_document(value);
    }

    pub(crate) fn from_document<T: DeserializeOwned>(doc: Document) -> Result<T, DeError> {
        #[cfg(not(feature = "bson-3"))]
        return mongodb::bson::from_document(doc);
        #[cfg(feature = "bson-3")]
        return mongodb::bson::deserialize_from_document(doc);
    }

    /// `doc` as a raw document.
    pub(crate) fn raw(doc: &Document) -> RawDocumentBuf {
        RawDocumentBuf::try_from(doc).expect("a valid document")
    }

    /// A regular expression (its texts are C strings in bson 3: a NUL, which
    /// no stored regex can hold, is dropped).
    pub(crate) fn regex(pattern: &str, options: &str) -> mongodb::bson::Regex {
        #[cfg(not(feature = "bson-3"))]
        return mongodb::bson::Regex {
            pattern: pattern.to_string(),
            options: options.to_string(),
        };
        #[cfg(feature = "bson-3")]
        return mongodb::bson::Regex {
            pattern: pattern.replace('\0', "").try_into().expect("no NUL"),
            options: options.replace('\0', "").try_into().expect("no NUL"),
        };
    }
}
