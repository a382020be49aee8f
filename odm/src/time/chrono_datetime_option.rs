//! `#[serde(with = "odm::time::chrono_datetime_option")]` on an
//! `Option<chrono::DateTime<Utc>>` field: a BSON date or null.

use ::chrono::{DateTime, Utc};
use mongodb::bson;
use serde::{Deserialize, Deserializer, Serializer};

use super::chrono_datetime::{from_bson, to_bson};

/// Serializes `at` as a BSON date, `None` as null.
pub fn serialize<S: Serializer>(
    at: &Option<DateTime<Utc>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => serializer.serialize_some(&to_bson(at)),
        None => serializer.serialize_none(),
    }
}

/// Deserializes a BSON date or null.
pub fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<DateTime<Utc>>, D::Error> {
    match Option::<bson::DateTime>::deserialize(deserializer)? {
        Some(at) => from_bson(at)
            .map(Some)
            .ok_or_else(|| super::out_of_range("chrono::DateTime")),
        None => Ok(None),
    }
}
