//! The payloads of the schema-version errors: a step of a model's
//! `migrate` that failed ([`MigrationError`]), and a write refused because
//! the stored document is at a newer schema version than the model
//! ([`SchemaError`]).

use std::fmt;

use mongodb::bson::Bson;

use super::id_text;

/// A step of a model's `migrate` function refused a stored document, or
/// left it unusable for odm (its `_id` changed).
///
/// A `migrate` function returns it with [`MigrationError::new`]; odm fills
/// in the collection, the document's `_id` and the step before returning
/// it as [`Error::Migration`](super::Error::Migration). Nothing was
/// written: the stored document is as it was.
///
/// Its text names the collection, the `_id`, the step and the message:
/// `cannot upgrade document "<id>" of collection "users" from schema
/// version 0 to 1: no mail; nothing was written`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MigrationError {
    // Read through the methods: the `_id` is boxed so that a step's
    // `Result<(), MigrationError>` stays small (clippy's
    // `result_large_err` would flag every user's `migrate` otherwise).
    pub(crate) message: String,
    pub(crate) collection: String,
    pub(crate) id: Box<Bson>,
    pub(crate) from: u32,
}

impl MigrationError {
    /// The error a step of `migrate` returns: `message` says why the
    /// stored document cannot be upgraded.
    ///
    /// ```
    /// use odm::prelude::*;
    ///
    /// fn upgrade(doc: &mut odm::bson::Document, from: u32) -> Result<(), MigrationError> {
    ///     match from {
    ///         0 => {
    ///             let mail = doc.remove("mail").ok_or(MigrationError::new("no `mail`"))?;
    ///             doc.insert("email", mail);
    ///             Ok(())
    ///         }
    ///         _ => Err(MigrationError::new(format!("no step from version {from}"))),
    ///     }
    /// }
    /// let mut stored = doc! { "_id": 1, "name": "Ann" };
    /// assert_eq!(upgrade(&mut stored, 0).unwrap_err().message(), "no `mail`");
    /// ```
    pub fn new(message: impl Into<String>) -> MigrationError {
        MigrationError {
            message: message.into(),
            collection: String::new(),
            id: Box::new(Bson::Null),
            from: 0,
        }
    }

    /// What the step reported.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The collection the document was read from.
    pub fn collection(&self) -> &str {
        &self.collection
    }
    /// The `_id` of the document.
    pub fn id(&self) -> &Bson {
        &self.id
    }
    /// The step that failed: the schema version it upgrades from.
    pub fn from(&self) -> u32 {
        self.from
    }

    /// `self`, naming the document and the step (odm fills them in).
    pub(crate) fn at(mut self, collection: &str, id: &Bson, from: u32) -> MigrationError {
        self.collection = collection.to_string();
        *self.id = id.clone();
        self.from = from;
        self
    }
}

impl fmt::Display for MigrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot upgrade document \"{}\" of collection \"{}\" from schema version {} to {}: {}; nothing was written",
            id_text(&self.id),
            self.collection,
            self.from,
            u64::from(self.from) + 1,
            self.message,
        )
    }
}

impl std::error::Error for MigrationError {}

/// A write refused because the document is stored at a schema version
/// above the model's (`#[odm(schema_version = N)]`): an instance running
/// an older model, during a rolling deploy, never writes back a document
/// a newer one upgraded (it would drop or misread the newer fields).
/// Nothing was written. Reading such a document is allowed where it
/// deserializes.
///
/// Its text names the collection, the `_id` (when one document is known),
/// the stored version and the model's: `document "<id>" of collection
/// "users" is stored at schema version 3, above this model's 2: an older
/// model never writes a newer document; nothing was written`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SchemaError {
    /// The model's collection.
    pub collection: String,
    /// The `_id` of the document (`Bson::Null` when not known).
    pub id: Bson,
    /// The schema version the document is stored at.
    pub stored: i64,
    /// The model's schema version.
    pub model: u32,
}

impl SchemaError {
    /// The model's collection.
    pub fn collection(&self) -> &str {
        &self.collection
    }
    /// The `_id` of the document (`Bson::Null` when not known).
    pub fn id(&self) -> &Bson {
        &self.id
    }
    /// The schema version the document is stored at.
    pub fn stored(&self) -> i64 {
        self.stored
    }
    /// The model's schema version.
    pub fn model(&self) -> u32 {
        self.model
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let of = match &self.id {
            Bson::Null => "a document".to_string(),
            id => format!("document \"{}\"", id_text(id)),
        };
        write!(
            f,
            "{of} of collection \"{}\" is stored at schema version {}, above this model's {}: an older model never writes a newer document; nothing was written",
            self.collection, self.stored, self.model
        )
    }
}

impl std::error::Error for SchemaError {}
