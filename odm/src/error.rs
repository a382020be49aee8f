//! The error type of every fallible `odm` operation.
//!
//! One policy for values in every text (see [`values_shown`]): the texts
//! name collections, indexes, fields, `_id`s, versions and tokens, and
//! show a stored or sent value (a filter's argument, a duplicated key, a
//! refused value, a lease's key) only when values are switched on for
//! debugging, with the command log's switch.

use std::fmt;

use mongodb::bson::Bson;

mod app;
mod batch;
pub(crate) mod classify;
mod driver;
mod duplicate;
mod index;
mod kinds;
mod labels;
mod lock;
mod page;
mod references;
mod schema;
mod validation;
mod values;
mod watch;

pub use app::ApplicationError;
pub use batch::{BatchError, BatchRefusal};
pub use index::{IndexError, IndexErrorKind};
pub use page::{PageError, PageErrorKind};
pub use references::{DanglingError, ReferencedError};
pub use schema::{MigrationError, SchemaError};
pub use watch::{WatchError, WatchErrorKind};

pub(crate) use classify::may_have_applied;
pub(crate) use driver::{from_driver, raised, Cause, Described};
pub(crate) use duplicate::complete_insert;
pub use kinds::{
    DeserializeError, DuplicateKeyError, HookError, NotFoundError, ShardKeyError, ShardKeyRule,
};
pub use lock::{FencedError, LeaseLostError, LeaseTimeoutError};
pub use validation::{ValidationError, ValidationErrors};
pub use values::values_shown;
pub(crate) use values::{
    server_message as masked_server_message, shape_of_doc, TARGET as VALUES_TARGET,
};

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
    Index(Box<IndexError>),
    /// A stored document could not be deserialized into the model type.
    Deserialize(Box<DeserializeError>),
    /// The value could not be serialized to BSON.
    Serialize(Box<crate::bson_release::SerError>),
    /// A lease was no longer held when its holder renewed or released it
    /// (it expired by the database's clock, and another holder may have
    /// taken it), or its keep-alive found it lost. Nothing was changed.
    LeaseLost(Box<LeaseLostError>),
    /// [`Leases::acquire_timeout`](super::lock::Leases::acquire_timeout)
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
    /// A change stream could not be opened as asked: a resume token from
    /// another collection, or a filter it cannot apply. Nothing was sent.
    /// See [`watch`](super::watch).
    Watch(Box<WatchError>),
    /// A keyset page could not be read as asked: a continuation token of
    /// another query, or a sort it cannot continue. See
    /// [`page`](super::page).
    Page(Box<PageError>),
    /// An error of the application's own, returned from a callback odm
    /// runs (a transaction, `update_with_retry`, a hook's reason is
    /// [`Error::Hook`]): see [`Error::application`]. Never retried.
    Application(Box<ApplicationError>),
    /// A batch of `bulk_save` / `insert_many` was refused before anything
    /// was sent (a `_id` given twice, a `Doc` of another collection).
    Batch(Box<BatchError>),
    /// A delete refused by a referential rule (`on_delete = refuse`):
    /// documents still refer to the document. Nothing was deleted. See
    /// [`refs`](super::refs).
    Referenced(Box<ReferencedError>),
    /// A write refused by a referential rule: a reference it stores points
    /// at a document that does not exist. Nothing was written. See
    /// [`refs`](super::refs).
    Dangling(Box<DanglingError>),
    /// Any other error from the MongoDB driver.
    Driver(mongodb::error::Error),
    /// A step of the model's `migrate` failed on a stored document (see
    /// `#[odm(schema_version = N, migrate = path)]`): it names the `_id`,
    /// the step (`from`) and the step's message. Nothing was written.
    Migration(Box<MigrationError>),
    /// A write of a document stored at a schema version above the model's
    /// was refused (an older instance during a rolling deploy). Nothing
    /// was written.
    Schema(Box<SchemaError>),
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
                crate::bson_release::ser_text(e, values::values_shown(), f)
            }
            Error::LeaseLost(e) => e.fmt(f),
            Error::LeaseTimeout(e) => e.fmt(f),
            Error::Fenced(e) => e.fmt(f),
            Error::ShardKey(e) => e.fmt(f),
            Error::Hook(e) => e.fmt(f),
            Error::Watch(e) => e.fmt(f),
            Error::Page(e) => e.fmt(f),
            Error::Application(e) => e.fmt(f),
            Error::Batch(e) => e.fmt(f),
            Error::Referenced(e) => e.fmt(f),
            Error::Dangling(e) => e.fmt(f),
            Error::Driver(e) => driver::describe(e, f),
            Error::Migration(e) => e.fmt(f),
            Error::Schema(e) => e.fmt(f),
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
            Error::Watch(e) => e.source(),
            Error::Page(e) => e.source(),
            Error::Application(e) => e.source(),
            Error::Batch(e) => e.source(),
            Error::Referenced(e) => e.source(),
            Error::Dangling(e) => e.source(),
            Error::Driver(e) => Some(e),
            Error::Migration(e) => e.source(),
            Error::Schema(e) => e.source(),
        }
    }
}

impl From<crate::bson_release::SerError> for Error {
    fn from(e: crate::bson_release::SerError) -> Self {
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
    /// What changed in the store since this copy read it (see
    /// [`stored_changes`](VersionError::stored_changes)).
    pub(crate) stored_changes: Option<Vec<String>>,
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

impl VersionError {
    /// The error of a stale copy loaded at `version`, whose save would have
    /// written `modified_paths`; what changed in the store is not known
    /// yet (see [`stored_changes`](VersionError::stored_changes)).
    pub(crate) fn new(id: Bson, version: i64, modified_paths: Vec<String>) -> VersionError {
        VersionError {
            id,
            version,
            modified_paths,
            stored_changes: None,
        }
    }

    /// This error, naming `paths` as what changed in the store.
    pub(crate) fn with_stored_changes(mut self, paths: Vec<String>) -> VersionError {
        self.stored_changes = Some(paths);
        self
    }

    /// The `_id` of the document.
    pub fn id(&self) -> &Bson {
        &self.id
    }
    /// The version the save expected to find.
    pub fn version(&self) -> i64 {
        self.version
    }
    /// The dotted BSON paths the save would have written: what this copy
    /// changed since it was loaded (the same paths as
    /// [`Doc::modified_paths`](crate::Doc::modified_paths)).
    pub fn modified_paths(&self) -> &[String] {
        &self.modified_paths
    }

    /// The dotted BSON paths whose stored value differs from what this copy
    /// loaded: what another writer changed since. Read by one read of the
    /// document after the refused write (a save that succeeds reads
    /// nothing more), and compared at the depth the save rules write at:
    /// `meta.city` for a nested field, `comments.1.text` for an element
    /// changed in place, `tags` for an array pushed to, pulled from or
    /// rewritten, a field the other writer added or removed by its name.
    /// The version key and the fence (`__fence`) are not fields and never
    /// named. `None` when the document is gone or could not be read (the
    /// read failed, or the refusal came from
    /// [`Model::update_with_retry`](crate::Model::update_with_retry)'s
    /// tries before its last, which reload anyway).
    ///
    /// From [`Doc::rebase`](crate::Doc::rebase), the paths of the store
    /// that overlap this copy's changes: why it could not merge them.
    ///
    /// Paths only: the values stay in the store, to be read by whoever
    /// may see them.
    pub fn stored_changes(&self) -> Option<&[String]> {
        self.stored_changes.as_deref()
    }
}

impl std::error::Error for VersionError {}

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
