//! The payloads of [`Error`](super::Error)'s variants about documents:
//! not found, duplicate key, not loadable, shard key, hook.

use std::fmt;

use mongodb::bson::{Bson, Document as BsonDocument};

use super::values;
use super::{id_text, Cause};

/// A write, reload or delete found no document matching its filter.
///
/// Its text shows the filter's shape (keys and operators, the `_id`
/// kept), its values only when [values are shown](crate::values_shown):
/// `No document found for query "{ _id: 7, email: ? }" on collection "users"`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NotFoundError {
    /// The collection that was searched.
    pub collection: String,
    /// The filter that matched nothing.
    pub filter: BsonDocument,
}

impl NotFoundError {
    /// The collection that was searched.
    pub fn collection(&self) -> &str {
        &self.collection
    }
    /// The filter that matched nothing.
    pub fn filter(&self) -> &BsonDocument {
        &self.filter
    }
}

impl fmt::Display for NotFoundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "No document found for query \"{}\" on collection \"{}\"",
            values::document_text(&self.filter, values::values_shown(), true),
            self.collection
        )
    }
}

impl std::error::Error for NotFoundError {}

/// A unique index refused a write (server error 11000).
///
/// Its text names the collection, the index and the key's fields; the
/// duplicated value only when [values are shown](crate::values_shown):
/// `duplicate key in collection "users" on index "email_1": { email: ? }`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DuplicateKeyError {
    /// The collection written to.
    pub collection: String,
    /// The index that refused the write, when the server names it.
    pub index: Option<String>,
    /// The duplicated key, when the server reports it (e.g. `{ email: "a@b.c" }`).
    pub key: Option<String>,
    /// The index's key pattern, e.g. `{email: 1}`, when known (boxed to
    /// keep [`Error`](super::Error) small).
    pub key_pattern: Option<Box<BsonDocument>>,
    /// The duplicated value, e.g. `{email: "a@b.c"}`, when known.
    pub key_value: Option<Box<BsonDocument>>,
    /// The server's message.
    pub message: String,
    /// The driver's error: the [`source`](std::error::Error::source).
    pub(crate) cause: Cause,
}

impl DuplicateKeyError {
    /// The collection written to.
    pub fn collection(&self) -> &str {
        &self.collection
    }
    /// The index that refused the write, when the server names it.
    pub fn index(&self) -> Option<&str> {
        self.index.as_deref()
    }
    /// The duplicated key as the server wrote it, when it did.
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }
    /// The index's key pattern, e.g. `{email: 1}`, when known.
    pub fn key_pattern(&self) -> Option<&BsonDocument> {
        self.key_pattern.as_deref()
    }
    /// The duplicated value, e.g. `{email: "a@b.c"}`, when known.
    pub fn key_value(&self) -> Option<&BsonDocument> {
        self.key_value.as_deref()
    }
    /// The server's message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for DuplicateKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "duplicate key in collection \"{}\"", self.collection)?;
        if let Some(index) = &self.index {
            write!(f, " on index \"{index}\"")?;
        }
        let values = values::values_shown();
        if values {
            if let Some(key) = &self.key {
                write!(f, ": {key}")?;
            }
        } else if let Some(fields) = &self.key_value {
            write!(f, ": {}", values::document_text(fields, false, false))?;
        } else if let Some(masked) = self.key.as_deref().and_then(values::masked_key_text) {
            write!(f, ": {masked}")?;
        } else if let Some(fields) = &self.key_pattern {
            write!(f, ": {}", values::document_text(fields, false, false))?;
        }
        Ok(())
    }
}

impl std::error::Error for DuplicateKeyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.source()
    }
}

/// A stored document does not deserialize into the model type.
///
/// Its text names the collection, the `_id` and the field; the value serde
/// quotes in its reason only when [values are shown](crate::values_shown).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DeserializeError {
    /// The collection it was read from.
    pub collection: String,
    /// Its `_id` (`Bson::Null` when it has none).
    pub id: Bson,
    /// The dotted path of the failing field (`""` when the whole document is at fault).
    pub path: String,
    /// What serde reported.
    pub message: String,
}

impl DeserializeError {
    /// The collection it was read from.
    pub fn collection(&self) -> &str {
        &self.collection
    }
    /// Its `_id` (`Bson::Null` when it has none).
    pub fn id(&self) -> &Bson {
        &self.id
    }
    /// The dotted path of the failing field (`""` for the whole document).
    pub fn path(&self) -> &str {
        &self.path
    }
    /// What serde reported (with the value it names, if any).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for DeserializeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot load document \"{}\" from collection \"{}\"",
            id_text(&self.id),
            self.collection,
        )?;
        if !self.path.is_empty() {
            write!(f, ": field \"{}\"", self.path)?;
        }
        let message = values::serde_message(&self.message, values::values_shown());
        write!(f, ": {message}")
    }
}

impl std::error::Error for DeserializeError {}

/// A write refused before sending for its model's shard key
/// (`#[odm(shard_key(..))]`): one that would change a shard key field of a
/// stored document, or an upsert whose filter does not give the whole key
/// ([`rule`](ShardKeyError::rule) says which).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ShardKeyError {
    /// The model's collection.
    pub collection: String,
    /// The `_id` of the document; `null` when the write names no one
    /// document (a claim, an upsert, `update_many`).
    pub id: Bson,
    /// The shard key field (BSON name).
    pub field: String,
    /// The path the write would have written (the field, or a path under
    /// or above it); for [`ShardKeyRule::NotInFilter`], the field.
    pub path: String,
    /// Which rule refused the write.
    pub rule: ShardKeyRule,
}

/// Which shard key rule refused a write ([`ShardKeyError::rule`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShardKeyRule {
    /// The write would change a shard key field of a stored document:
    /// a stored document keeps its shard key.
    Changed,
    /// An upsert's filter does not fix this shard key field by equality:
    /// MongoDB routes an upsert on a sharded collection by its whole
    /// shard key, and refuses one it cannot route.
    NotInFilter,
}

impl ShardKeyError {
    /// The model's collection.
    pub fn collection(&self) -> &str {
        &self.collection
    }
    /// The `_id` of the document.
    pub fn id(&self) -> &Bson {
        &self.id
    }
    /// The shard key field (BSON name).
    pub fn field(&self) -> &str {
        &self.field
    }
    /// The path the write would have written.
    pub fn path(&self) -> &str {
        &self.path
    }
    /// Which rule refused the write.
    pub fn rule(&self) -> ShardKeyRule {
        self.rule
    }
}

impl fmt::Display for ShardKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rule == ShardKeyRule::NotInFilter {
            return write!(
                f,
                "upsert into collection \"{}\" does not fix shard key field \"{}\" by equality in its filter: MongoDB routes an upsert by its whole shard key; nothing was sent",
                self.collection, self.field
            );
        }
        let of = match &self.id {
            // A set-based write (`update_many`) names no document.
            Bson::Null => "the matched documents".to_string(),
            id => format!("document \"{}\"", id_text(id)),
        };
        write!(
            f,
            "cannot change shard key field \"{}\" (path \"{}\") of {of} in collection \"{}\": a stored document keeps its shard key; nothing was sent",
            self.field, self.path, self.collection
        )
    }
}

impl std::error::Error for ShardKeyError {}

/// The error of a document hook (see [`Hooks`](crate::Hooks)).
///
/// Its text is the hook's name and the reason the hook gave, as the
/// application wrote it.
#[derive(Debug)]
#[non_exhaustive]
pub struct HookError {
    /// The hook that failed: `before_save`, `after_save`, `before_delete`
    /// or `after_delete`.
    pub hook: &'static str,
    /// What the hook returned.
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl HookError {
    /// The hook that failed: `before_save`, `after_save`, `before_delete`
    /// or `after_delete`.
    pub fn hook(&self) -> &'static str {
        self.hook
    }
    /// What the hook returned.
    pub fn reason(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.source
    }
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} hook failed: {}", self.hook, self.source)
    }
}

/// The hook's reason is in the `Display` text already, so `source()` goes
/// on from the reason's own source: a report walking the chain shows each
/// text once.
impl std::error::Error for HookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.source()
    }
}
