//! The errors of leases and fenced writes.

use std::fmt;

use mongodb::bson::Document as BsonDocument;

use super::values::{self, Value};

/// A lease is no longer held by the caller.
///
/// Its text names the key only when [values are
/// shown](crate::values_shown) (a key is often made of a value, such as
/// `email:<address>`): `lease ? (token 4) is no longer held: ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeaseLostError {
    /// The lease's key.
    pub key: String,
    /// The fencing token of the lost grant.
    pub token: i64,
}

impl LeaseLostError {
    /// The lease's key.
    pub fn key(&self) -> &str {
        &self.key
    }
    /// The fencing token of the lost grant.
    pub fn token(&self) -> i64 {
        self.token
    }
}

impl fmt::Display for LeaseLostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "lease {} (token {}) is no longer held: it expired by the database's clock and may have been taken by another holder",
            Value(&Quoted(&self.key), values::values_shown()),
            self.token
        )
    }
}

impl std::error::Error for LeaseLostError {}

/// A lease stayed held by others for the whole wait.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeaseTimeoutError {
    /// The lease's key.
    pub key: String,
    /// How long the caller waited.
    pub waited: std::time::Duration,
}

impl LeaseTimeoutError {
    /// The lease's key.
    pub fn key(&self) -> &str {
        &self.key
    }
    /// How long the caller waited.
    pub fn waited(&self) -> std::time::Duration {
        self.waited
    }
}

impl fmt::Display for LeaseTimeoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "lease {} is still held by another holder after waiting {:?}",
            Value(&Quoted(&self.key), values::values_shown()),
            self.waited
        )
    }
}

impl std::error::Error for LeaseTimeoutError {}

/// A fenced write refused because a larger token already wrote the document.
///
/// Its text shows the filter's shape (its `_id` kept), the values of the
/// filter only when [values are shown](crate::values_shown).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FencedError {
    /// The collection written to.
    pub collection: String,
    /// The filter of the refused write (for a save: the `_id`).
    pub filter: BsonDocument,
    /// The token that was refused (the lease's).
    pub token: i64,
    /// The larger token stored in the document, when it was read.
    pub stored: Option<i64>,
}

impl FencedError {
    /// The collection written to.
    pub fn collection(&self) -> &str {
        &self.collection
    }
    /// The filter of the refused write (for a save: the `_id`).
    pub fn filter(&self) -> &BsonDocument {
        &self.filter
    }
    /// The token that was refused (the lease's).
    pub fn token(&self) -> i64 {
        self.token
    }
    /// The larger token stored in the document, when it was read.
    pub fn stored(&self) -> Option<i64> {
        self.stored
    }
}

impl fmt::Display for FencedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let filter = values::document_text(&self.filter, values::values_shown(), true);
        write!(
            f,
            "fenced write with token {} refused on collection \"{}\" for \"{filter}\": ",
            self.token, self.collection
        )?;
        match self.stored {
            Some(stored) => write!(f, "the document holds the newer token {stored}"),
            None => f.write_str("the document holds a newer token"),
        }
    }
}

impl std::error::Error for FencedError {}

/// `"text"`.
pub(super) struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.0)
    }
}
