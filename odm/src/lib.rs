// The crate documentation is the guide, in odm/docs/guide.md beside the
// save rules; this file holds the crate's modules and exports.
#![doc = include_str!("../docs/guide.md")]
#![warn(missing_docs)]
// Unsafe code only where a module allows it with its reasons (same_type).
#![deny(unsafe_code)]

// The layers, lowest first (see ARCHITECTURE.md at the repository root;
// tests/layers.rs keeps every import pointing down):
// bson_release, error -> codec, fields -> schema, validate -> plan -> wire
// -> lock -> model, index -> atomic, bulk, many, migrate, typed, watch,
// page, aggregate, variant -> refs.
mod bson_release;
mod error;

mod codec;
pub mod fields;

mod schema;
pub mod validate;

mod plan;
pub mod time;

mod wire;

pub mod lock;

pub mod index;
mod model;

mod atomic;
mod bulk;
pub mod many;
pub mod migrate;
pub mod typed;
pub mod watch;

pub mod aggregate;
pub mod page;
pub mod variant;

pub mod refs;

#[doc = include_str!("../docs/save-rules.md")]
pub mod rules {}

#[doc(hidden)]
pub mod __private;

pub use aggregate::{Aggregate, AggregateStream};
pub use atomic::{
    transaction, Claim, DocCheckpoint, Rollback, Transaction, UpdateWithRetry, Upsert,
};
pub use bulk::{BulkSave, InsertMany};
pub use codec::array::BsonArray;
pub use error::{
    values_shown, ApplicationError, BatchError, BatchRefusal, DeserializeError, DuplicateKeyError,
    Error, FencedError, HookError, LeaseLostError, LeaseTimeoutError, MigrationError,
    NotFoundError, Result, SchemaError, ShardKeyError, ShardKeyRule, ValidationError,
    ValidationErrors, VersionError,
};
pub use error::{DanglingError, ReferencedError};
pub use fields::{FieldPath, Fields, Flattened};
pub use index::{IndexError, SyncIndexes, SyncReport};
pub use many::{DeleteMany, UpdateMany, UpdateReport};
pub use migrate::{MigrateAll, MigrationProgress, MigrationReport};
pub use model::delete::Delete;
pub use model::doc::Doc;
pub use model::hooks;
pub use model::hooks::{HookContext, Hooks};
pub use model::query::{Count, Create, Find, FindOne};
pub use model::rebase::Rebase;
pub use model::reload::Reload;
pub use model::save::Save;
pub use model::stream::FindStream;
pub use model::Document;
pub use model::Model;
pub use page::{Page, PageStream, Paginate};
pub use refs::{FindRefs, Joined, Lookup, Ref, Refs};
pub use validate::Validate;
pub use variant::{Kind, Variant};
pub use watch::{ChangeEvent, ChangeStream, ResumeToken, Watch};

/// `#[derive(Document)]`; see the [crate documentation](crate).
pub use odm_derive::Document;

/// `#[derive(Validate)]` for embedded sub-documents; see [`validate`].
pub use odm_derive::Validate;

/// `#[derive(Fields)]`: typed paths for embedded sub-documents; see
/// [`fields`]. It also lets a save tell an unchanged sub-document without
/// serializing it (see "What a save costs" in the guide).
pub use odm_derive::Fields;

pub use mongodb::bson;

/// Everything a model file needs: `use odm::prelude::*;`.
pub mod prelude {
    pub use crate::refs::Ref;
    pub use crate::{
        Doc, Document, Error, Fields, MigrationError, MigrationProgress, MigrationReport, Model,
        Result, SchemaError, Validate, ValidationError, ValidationErrors,
    };
    pub use mongodb::bson::oid::ObjectId;
    pub use mongodb::bson::{doc, rawdoc};
}
