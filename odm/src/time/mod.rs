//! Date-time types of the `chrono` and `time` crates as model fields,
//! stored as BSON dates (features `chrono` and `time`).
//!
//! serde would store a `chrono::DateTime<Utc>` or a `time::OffsetDateTime`
//! as text; these modules, named in `#[serde(with = "...")]`, store it as a
//! BSON date instead, the same way under bson 2 and bson 3:
//!
//! | field type | `#[serde(with = ...)]` |
//! |---|---|
//! | `chrono::DateTime<Utc>` | `odm::time::chrono_datetime` |
//! | `Option<chrono::DateTime<Utc>>` | `odm::time::chrono_datetime_option` |
//! | `time::OffsetDateTime` | `odm::time::offset_datetime` |
//! | `Option<time::OffsetDateTime>` | `odm::time::offset_datetime_option` |
//!
//! A BSON date holds milliseconds since the Unix epoch, in UTC. A value
//! with finer precision is stored cut to the millisecond (rounded towards
//! the past), and a loaded value is in UTC. Saves compare what the value
//! serializes to, so a value whose sub-millisecond part (or offset) differs
//! from the stored one is no change: it writes nothing. The field as loaded
//! back holds the stored millisecond. `#[odm(timestamps)]` fields may have
//! these types too; their stamps are whole milliseconds.
//!
//! An `Option` field with these helpers needs `#[serde(default)]` to load a
//! document without the field.
//!
//! The features also turn on the driver's bson support for the crates, so
//! a filter can hold a value: `doc! {"at": {"$lt": Bson::from(at)}}` (bson
//! converts as these helpers store).

#[cfg(feature = "chrono")]
pub mod chrono_datetime;
#[cfg(feature = "chrono")]
pub mod chrono_datetime_option;
#[cfg(feature = "time")]
pub mod offset_datetime;
#[cfg(feature = "time")]
pub mod offset_datetime_option;

/// The error of a stored date out of the type's range: the date itself is
/// not shown (a stored value).
#[cfg(any(feature = "chrono", feature = "time"))]
fn out_of_range<E: serde::de::Error>(ty: &str) -> E {
    E::custom(format_args!("a stored date is outside the range of {ty}"))
}

/// Serializes an optional date: a BSON date or null.
#[cfg(any(feature = "chrono", feature = "time"))]
fn serialize_option<S: serde::Serializer>(
    at: Option<mongodb::bson::DateTime>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => serializer.serialize_some(&at),
        None => serializer.serialize_none(),
    }
}

/// Deserializes a BSON date or null, converted by `from` (`None` out of
/// the range of `ty`).
#[cfg(any(feature = "chrono", feature = "time"))]
fn deserialize_option<'de, D: serde::Deserializer<'de>, T>(
    deserializer: D,
    from: fn(mongodb::bson::DateTime) -> Option<T>,
    ty: &str,
) -> Result<Option<T>, D::Error> {
    use serde::Deserialize;
    match Option::<mongodb::bson::DateTime>::deserialize(deserializer)? {
        Some(at) => from(at).map(Some).ok_or_else(|| out_of_range(ty)),
        None => Ok(None),
    }
}

#[cfg(any(feature = "chrono", feature = "time"))]
mod stamp;

#[cfg(all(test, feature = "chrono", feature = "time"))]
mod tests;
