//! `#[serde(with = "odm::time::offset_datetime")]` on a
//! `time::OffsetDateTime` field: stored as a BSON date (milliseconds, UTC).

use ::time::OffsetDateTime;
use mongodb::bson;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

const NANOS_PER_MILLI: i128 = 1_000_000;

/// `at` as a BSON date: its millisecond, rounded towards the past.
pub(crate) fn to_bson(at: &OffsetDateTime) -> bson::DateTime {
    let millis = at.unix_timestamp_nanos().div_euclid(NANOS_PER_MILLI);
    // `time`'s range (years -9999 to 9999) fits an i64 of milliseconds.
    bson::DateTime::from_millis(millis as i64)
}

/// A BSON date as an `OffsetDateTime` in UTC, `None` out of time's range.
pub(crate) fn from_bson(at: bson::DateTime) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(at.timestamp_millis()) * NANOS_PER_MILLI)
        .ok()
}

/// Serializes `at` as a BSON date.
pub fn serialize<S: Serializer>(at: &OffsetDateTime, serializer: S) -> Result<S::Ok, S::Error> {
    to_bson(at).serialize(serializer)
}

/// Deserializes a BSON date (the value is in UTC).
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<OffsetDateTime, D::Error> {
    let at = bson::DateTime::deserialize(deserializer)?;
    from_bson(at).ok_or_else(|| super::out_of_range("time::OffsetDateTime"))
}
