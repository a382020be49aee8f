//! The error type of every fallible `odm` operation.

use std::fmt;

use mongodb::bson::{Bson, Document as BsonDocument};

mod driver;
mod duplicate;

pub(crate) use driver::{from_driver, may_have_applied, Cause, Described};
pub(crate) use duplicate::complete_insert;

/// `Result<T, odm::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in `odm`.
///
/// Large payloads are boxed so `Result<T, odm::Error>` stays small (fields
/// are reached as usual: `Err(Error::Version(e)) => e.version`).
///
/// Match on the variant to react to a race: [`Error::Version`] means another
/// writer changed the document since it was loaded (reload and try again),
/// [`Error::DuplicateKey`] means a unique index refused the write.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A versioned save matched no document: the stored version moved on
    /// since this copy was loaded (or the document is gone).
    Version(Box<VersionError>),
    /// An unversioned save, a reload or a delete matched no document.
    NotFound(Box<NotFoundError>),
    /// Validators failed; nothing was sent to the server.
    Validation(ValidationErrors),
    /// The server refused a write because of a unique index (code 11000).
    DuplicateKey(Box<DuplicateKeyError>),
    /// `sync_indexes` found a declared index in conflict with an existing
    /// one, or the server refused to create it.
    Index(Box<crate::index::IndexError>),
    /// A stored document could not be deserialized into the model type.
    Deserialize(Box<DeserializeError>),
    /// The value could not be serialized to BSON.
    Serialize(Box<mongodb::bson::ser::Error>),
    /// A lease was no longer held when its holder renewed or released it
    /// (it expired by the database's clock, and another holder may have
    /// taken it), or its keep-alive found it lost. Nothing was changed.
    LeaseLost(Box<LeaseLostError>),
    /// [`Leases::acquire_timeout`](crate::lock::Leases::acquire_timeout)
    /// gave up: another holder kept the lease for the whole wait.
    LeaseTimeout(Box<LeaseTimeoutError>),
    /// A fenced write was refused: the document already holds a larger
    /// fencing token, written under a newer lease. Nothing was changed.
    Fenced(Box<FencedError>),
    /// A save would change a field of the model's `shard_key`; nothing was
    /// sent.
    ShardKey(Box<ShardKeyError>),
    /// A `before_save` / `before_delete` hook refused the operation (nothing
    /// was sent), or an `after_save` / `after_delete` hook failed (the write
    /// stands). See [`Hooks`](crate::Hooks).
    Hook(Box<HookError>),
    /// Any other error from the MongoDB driver.
    Driver(mongodb::error::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Version(e) => e.fmt(f),
            Error::NotFound(e) => e.fmt(f),
            Error::Validation(e) => e.fmt(f),
            Error::DuplicateKey(e) => e.fmt(f),
            Error::Index(e) => e.fmt(f),
            Error::Deserialize(e) => e.fmt(f),
            Error::Serialize(e) => {
                f.write_str("cannot serialize the document to BSON: ")?;
                driver::serialize_text(e, f)
            }
            Error::LeaseLost(e) => e.fmt(f),
            Error::LeaseTimeout(e) => e.fmt(f),
            Error::Fenced(e) => e.fmt(f),
            Error::ShardKey(e) => e.fmt(f),
            Error::Hook(e) => e.fmt(f),
            Error::Driver(e) => driver::describe(e, f),
        }
    }
}

/// Each variant is its payload: the same text, and the payload's source,
/// which is the driver's error where there is one (a duplicate key, an
/// index the server refused) and the serializer's for [`Error::Serialize`].
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Version(e) => e.source(),
            Error::NotFound(e) => e.source(),
            Error::Validation(e) => e.source(),
            Error::DuplicateKey(e) => e.source(),
            Error::Index(e) => e.source(),
            Error::Deserialize(e) => e.source(),
            Error::Serialize(e) => Some(&**e),
            Error::LeaseLost(e) => e.source(),
            Error::LeaseTimeout(e) => e.source(),
            Error::Fenced(e) => e.source(),
            Error::ShardKey(e) => e.source(),
            Error::Hook(e) => e.source(),
            Error::Driver(e) => Some(e),
        }
    }
}

impl From<mongodb::bson::ser::Error> for Error {
    fn from(e: mongodb::bson::ser::Error) -> Self {
        Error::Serialize(Box::new(e))
    }
}

/// Text of an id as Mongoose prints it: the hex of an ObjectId, the bare
/// text of a string, the number itself.
pub(crate) fn id_text(id: &Bson) -> String {
    match id {
        Bson::ObjectId(oid) => oid.to_hex(),
        Bson::String(s) => s.clone(),
        Bson::Int32(n) => n.to_string(),
        Bson::Int64(n) => n.to_string(),
        Bson::Double(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// A versioned save matched nothing.
///
/// Displays exactly as Mongoose's `VersionError`:
/// `No matching document found for id "<id>" version <v> modifiedPaths "<a, b>"`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct VersionError {
    /// The `_id` of the document.
    pub id: Bson,
    /// The version the save expected to find.
    pub version: i64,
    /// The dotted BSON paths the save would have written.
    pub modified_paths: Vec<String>,
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "No matching document found for id \"{}\" version {} modifiedPaths \"{}\"",
            id_text(&self.id),
            self.version,
            self.modified_paths.join(", ")
        )
    }
}

impl std::error::Error for VersionError {}

/// A write, reload or delete found no document matching its filter.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NotFoundError {
    /// The collection that was searched.
    pub collection: String,
    /// The filter that matched nothing.
    pub filter: BsonDocument,
}

impl fmt::Display for NotFoundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "No document found for query \"{}\" on collection \"{}\"",
            self.filter, self.collection
        )
    }
}

impl std::error::Error for NotFoundError {}

/// One failed validation: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// Dotted BSON path of the failing value (`""` for the whole document).
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl ValidationError {
    /// A failure at `path` (a BSON path such as `avatar` or `comments.3.text`).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ValidationError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ValidationError {}

/// Every validation failure of one write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidationErrors {
    errors: Vec<ValidationError>,
}

impl ValidationErrors {
    /// No failures yet.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds one failure.
    pub fn push(&mut self, error: ValidationError) {
        self.errors.push(error);
    }
    /// The failures, in the order the validators ran.
    pub fn errors(&self) -> &[ValidationError] {
        &self.errors
    }
    /// The failing paths, in order.
    pub fn paths(&self) -> Vec<&str> {
        self.errors.iter().map(|e| e.path.as_str()).collect()
    }
    /// `true` when nothing failed.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
    /// `Ok(())` when nothing failed, else `Err(self)`.
    pub fn into_result(self) -> Result<(), ValidationErrors> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }
}

impl From<ValidationError> for ValidationErrors {
    fn from(e: ValidationError) -> Self {
        ValidationErrors { errors: vec![e] }
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("validation failed: ")?;
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            e.fmt(f)?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}

/// A unique index refused a write (server error 11000).
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
    /// keep [`Error`] small).
    pub key_pattern: Option<Box<BsonDocument>>,
    /// The duplicated value, e.g. `{email: "a@b.c"}`, when known.
    pub key_value: Option<Box<BsonDocument>>,
    /// The server's message.
    pub message: String,
    /// The driver's error: the [`source`](std::error::Error::source).
    pub(crate) cause: Cause,
}

impl fmt::Display for DuplicateKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "duplicate key in collection \"{}\"", self.collection)?;
        if let Some(index) = &self.index {
            write!(f, " on index \"{index}\"")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": {key}")?;
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
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for DeserializeError {}

/// A lease is no longer held by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeaseLostError {
    /// The lease's key.
    pub key: String,
    /// The fencing token of the lost grant.
    pub token: i64,
}

impl fmt::Display for LeaseLostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "lease \"{}\" (token {}) is no longer held: it expired by the database's clock and may have been taken by another holder",
            self.key, self.token
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

impl fmt::Display for LeaseTimeoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "lease \"{}\" is still held by another holder after waiting {:?}",
            self.key, self.waited
        )
    }
}

impl std::error::Error for LeaseTimeoutError {}

/// A fenced write refused because a larger token already wrote the document.
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

impl fmt::Display for FencedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "fenced write with token {} refused on collection \"{}\" for \"{}\": ",
            self.token, self.collection, self.filter
        )?;
        match self.stored {
            Some(stored) => write!(f, "the document holds the newer token {stored}"),
            None => f.write_str("the document holds a newer token"),
        }
    }
}

impl std::error::Error for FencedError {}

/// A save that would change a shard key field of a stored document.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ShardKeyError {
    /// The model's collection.
    pub collection: String,
    /// The `_id` of the document (`Bson::Null` for a set-based write,
    /// which names no document).
    pub id: Bson,
    /// The shard key field (BSON name).
    pub field: String,
    /// The path the save would have written (the field or a path under it).
    pub path: String,
}

impl fmt::Display for ShardKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
#[derive(Debug)]
#[non_exhaustive]
pub struct HookError {
    /// The hook that failed: `before_save`, `after_save`, `before_delete`
    /// or `after_delete`.
    pub hook: &'static str,
    /// What the hook returned.
    pub source: Box<dyn std::error::Error + Send + Sync>,
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

impl Error {
    /// The error a hook returns to refuse an operation, from anything that
    /// is an error (a `String` or `&str` too):
    /// `return Err(Error::hook("a closed account cannot be saved"))`. The
    /// hook's name is filled in when odm runs it.
    pub fn hook(reason: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
        Error::Hook(Box::new(HookError {
            hook: "",
            source: reason.into(),
        }))
    }
}

#[cfg(test)]
mod tests;
