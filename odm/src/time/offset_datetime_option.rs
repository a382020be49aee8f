//! `#[serde(with = "odm::time::offset_datetime_option")]` on an
//! `Option<time::OffsetDateTime>` field: a BSON date or null.

use ::time::OffsetDateTime;
use mongodb::bson;
use serde::{Deserialize, Deserializer, Serializer};

use super::offset_datetime::{from_bson, to_bson};

/// Serializes `at` as a BSON date, `None` as null.
pub fn serialize<S: Serializer>(
    at: &Option<OffsetDateTime>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => serializer.serialize_some(&to_bson(at)),
        None => serializer.serialize_none(),
    }
}

/// Deserializes a BSON date or null (the value is in UTC).
pub fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<OffsetDateTime>, D::Error> {
    match Option::<bson::DateTime>::deserialize(deserializer)? {
        Some(at) => from_bson(at)
            .map(Some)
            .ok_or_else(|| super::out_of_range("time::OffsetDateTime")),
        None => Ok(None),
    }
}
