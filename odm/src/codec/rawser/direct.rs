//! `ObjectId` and `DateTime` values written straight from their bytes.
//!
//! Their own `Serialize` goes through extended JSON: `ObjectId` formats
//! itself as 24 hex digits (two allocations) and `DateTime` its
//! milliseconds as a decimal string, which the writer then parses back.
//! When the value's type is exactly one of them, the element is written
//! directly: the same type byte and the same bytes as that round trip.

use mongodb::bson::oid::ObjectId;
use mongodb::bson::DateTime;

use super::{tag, Result, Writer};
use crate::codec::same_type;

/// Writes `value`'s element value (its type and bytes) when `T` is
/// `ObjectId` or `DateTime`, and says whether it did.
pub(super) fn write<T: ?Sized>(w: &mut Writer, value: &T) -> Result<bool> {
    if let Some(id) = same_type::as_ref::<T, ObjectId>(value) {
        w.set_type(tag::OBJECT_ID)?;
        w.bytes.extend_from_slice(&id.bytes());
        return Ok(true);
    }
    if let Some(date) = same_type::as_ref::<T, DateTime>(value) {
        w.set_type(tag::DATE_TIME)?;
        w.bytes
            .extend_from_slice(&date.timestamp_millis().to_le_bytes());
        return Ok(true);
    }
    Ok(false)
}
