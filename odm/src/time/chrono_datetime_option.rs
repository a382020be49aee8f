//! `#[serde(with = "odm::time::chrono_datetime_option")]` on an
//! `Option<chrono::DateTime<Utc>>` field: a BSON date or null.

use ::chrono::{DateTime, Utc};
use serde::{Deserializer, Serializer};

use super::chrono_datetime::{from_bson, to_bson};

/// Serializes `at` as a BSON date, `None` as null.
pub fn serialize<S: Serializer>(
    at: &Option<DateTime<Utc>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    super::serialize_option(at.as_ref().map(to_bson), serializer)
}

/// Deserializes a BSON date or null.
pub fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<DateTime<Utc>>, D::Error> {
    super::deserialize_option(deserializer, from_bson, "chrono::DateTime")
}
