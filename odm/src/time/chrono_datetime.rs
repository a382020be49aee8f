//! `#[serde(with = "odm::time::chrono_datetime")]` on a
//! `chrono::DateTime<Utc>` field: stored as a BSON date (milliseconds).

use ::chrono::{DateTime, Utc};
use mongodb::bson;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `at` as a BSON date: its millisecond, rounded towards the past.
pub(crate) fn to_bson(at: &DateTime<Utc>) -> bson::DateTime {
    bson::DateTime::from_millis(at.timestamp_millis())
}

/// A BSON date as a `chrono` date-time, `None` out of chrono's range.
pub(crate) fn from_bson(at: bson::DateTime) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_millis(at.timestamp_millis())
}

/// Serializes `at` as a BSON date.
pub fn serialize<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    to_bson(at).serialize(serializer)
}

/// Deserializes a BSON date.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    let at = bson::DateTime::deserialize(deserializer)?;
    from_bson(at).ok_or_else(|| super::out_of_range("chrono::DateTime"))
}
