//! bson's serde entry points under the names of bson 2, whichever release
//! the driver exposes as `mongodb::bson` (the suite's `bson-3` feature
//! builds odm and the driver with bson 3).

use mongodb::bson::{Bson, Document};
use serde::Serialize;

#[cfg(not(feature = "bson-3"))]
pub type SerError = mongodb::bson::ser::Error;
#[cfg(feature = "bson-3")]
pub type SerError = mongodb::bson::error::Error;

/// `value` as a document.
pub fn to_document<T: Serialize + ?Sized>(value: &T) -> Result<Document, SerError> {
    #[cfg(not(feature = "bson-3"))]
    return mongodb::bson::to_document(value);
    #[cfg(feature = "bson-3")]
    return mongodb::bson::serialize_to_document(value);
}

/// `value` as a BSON value.
pub fn to_bson<T: Serialize + ?Sized>(value: &T) -> Result<Bson, SerError> {
    #[cfg(not(feature = "bson-3"))]
    return mongodb::bson::to_bson(value);
    #[cfg(feature = "bson-3")]
    return mongodb::bson::serialize_to_bson(value);
}

/// A value of type `T` from a BSON value.
pub fn from_bson<T: serde::de::DeserializeOwned>(value: Bson) -> Result<T, DeError> {
    #[cfg(not(feature = "bson-3"))]
    return mongodb::bson::from_bson(value);
    #[cfg(feature = "bson-3")]
    return mongodb::bson::deserialize_from_bson(value);
}

#[cfg(not(feature = "bson-3"))]
pub type DeError = mongodb::bson::de::Error;
#[cfg(feature = "bson-3")]
pub type DeError = mongodb::bson::error::Error;
