//! `#[serde(with = "odm::time::offset_datetime_option")]` on an
//! `Option<time::OffsetDateTime>` field: a BSON date or null.

use ::time::OffsetDateTime;
use serde::{Deserializer, Serializer};

use super::offset_datetime::{from_bson, to_bson};

/// Serializes `at` as a BSON date, `None` as null.
pub fn serialize<S: Serializer>(
    at: &Option<OffsetDateTime>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    super::serialize_option(at.as_ref().map(to_bson), serializer)
}

/// Deserializes a BSON date or null (the value is in UTC).
pub fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<OffsetDateTime>, D::Error> {
    super::deserialize_option(deserializer, from_bson, "time::OffsetDateTime")
}
