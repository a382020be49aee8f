//! `ObjectId` and `DateTime` values read straight from their bytes.
//!
//! Their own `Deserialize` builds a `Bson` from the extended-JSON map the
//! deserializer presents (`{$oid: hex}`, `{$date: {$numberLong: "ms"}}`),
//! formatting and parsing hex and decimal strings on the way. When the
//! seed is exactly `PhantomData<ObjectId>` or `PhantomData<DateTime>`
//! (serde's plain `T::deserialize`, what a derived field or `Vec` element
//! uses) and the element has that type, the value is made from its bytes:
//! the same value that round trip gives. Any other seed (a
//! `deserialize_with`, an `Option`) takes the usual path.

use std::marker::PhantomData;

use mongodb::bson::oid::ObjectId;
use mongodb::bson::DateTime;
use serde::de::DeserializeSeed;

use super::{tag, Value};
use crate::codec::same_type;

/// The value `seed` would deserialize from `value`, when read directly.
pub(super) fn read<'de, S: DeserializeSeed<'de>>(value: &Value<'de>) -> Option<S::Value> {
    match value.kind {
        tag::OBJECT_ID if same_type::is::<S, PhantomData<ObjectId>>() => {
            let bytes: [u8; 12] = value.data.try_into().ok()?;
            same_type::cast(ObjectId::from_bytes(bytes))
        }
        tag::DATE_TIME if same_type::is::<S, PhantomData<DateTime>>() => {
            let millis = i64::from_le_bytes(value.data.try_into().ok()?);
            same_type::cast(DateTime::from_millis(millis))
        }
        _ => None,
    }
}
