//! # odm: a change-tracking object-document mapper for MongoDB
//!
//! `odm` is to Rust what Mongoose is to Node.js, with the compiler catching
//! misuse. Derive [`Document`] on a struct, load it as a tracked [`Doc`],
//! change it, and [`save`](Doc::save) sends one `updateOne` with only what
//! changed, guarded by Mongoose's version key rules.
//!
//! ## A model
//!
//! ```
//! use odm::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
//! #[odm(collection = "users", optimistic_concurrency)]
//! pub struct User {
//!     #[serde(rename = "_id")]
//!     pub id: ObjectId,
//!     pub email: String,
//!     pub status: String,
//!     pub avatar: Option<String>,
//!     #[serde(default)]
//!     pub tags: Vec<String>,
//! }
//! ```
//!
//! The field serialized as `_id` is the id. The version key (`__v` unless
//! `version_key = "..."` says otherwise) is not a struct field: it lives in
//! the stored document and on the [`Doc`] ([`Doc::version`]).
//!
//! ## Attributes
//!
//! Field names in attributes are Rust identifiers; odm maps them to the
//! stored (BSON) names through `#[serde(rename)]` and `rename_all`. Every
//! mistake below is a compile error spanned at it, and all of them are
//! reported in one compile.
//!
//! | on the struct | meaning |
//! |---|---|
//! | `collection = "users"` | the collection (default: `user_profiles` for `UserProfile`) |
//! | `version_key = "rev"` | the version field in stored documents (default `__v`) |
//! | `versioning = false` | no version at all |
//! | `optimistic_concurrency` | every changing save checks and bumps the version |
//! | `optimistic_concurrency(include(a, b))` / `(exclude(a, b))` | only changes to / outside these fields are checked |
//! | `validate = path` | a cross-field rule `fn(&Self) -> Result<(), ValidationError>` (repeatable) |
//! | `index(keys(a = 1, b = -1), unique, sparse, partial(..), name = "..")` | a compound index |
//!
//! | on a field | meaning |
//! |---|---|
//! | `skip_versioning` | changes to this array never touch the version |
//! | `unique`, `index`, `sparse`, `partial(status = "ACTIVE")` | single-field indexes ([`index`]) |
//! | `min`, `max`, `min_len`, `max_len`, `one_of(..)`, `required`, `validate = path`, `nested` | validation ([`validate`]) |
//!
//! ## What a save sends
//!
//! [`Doc::changes`] shows the `(filter, update)` the next save would send.
//! Here a document is tracked from stored BSON without a server (in an
//! application it comes from [`Model::find_by_id`] and friends):
//!
//! ```
//! # use odm::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
//! # #[odm(collection = "posts")]
//! # pub struct Post {
//! #     #[serde(rename = "_id")]
//! #     pub id: i64,
//! #     pub title: String,
//! #     pub tags: Vec<String>,
//! # }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> odm::Result<()> {
//! # let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/").await?;
//! let posts: Model<Post> = Post::model(&client.database("app"));
//! let stored = rawdoc! { "_id": 7_i64, "title": "Hello", "tags": ["a"], "__v": 3 };
//! let mut post = posts.hydrate(&stored)?;
//! assert_eq!(post.version(), Some(3));
//!
//! // A scalar change is a plain $set: no version check.
//! post.title = "Hello, world".into();
//! assert_eq!(
//!     post.changes(),
//!     Some((doc! { "_id": 7_i64 }, doc! { "$set": { "title": "Hello, world" } }))
//! );
//!
//! // An append is a $push and bumps the version, as in Mongoose.
//! post.tags.push("b".into());
//! assert_eq!(
//!     post.changes(),
//!     Some((
//!         doc! { "_id": 7_i64 },
//!         doc! {
//!             "$set": { "title": "Hello, world" },
//!             "$push": { "tags": { "$each": ["b"] } },
//!             "$inc": { "__v": 1 },
//!         }
//!     ))
//! );
//! assert_eq!(post.modified_paths(), ["title", "tags"]);
//! # client.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! The full rules are Mongoose's:
//!
//! | change | operator | version |
//! |---|---|---|
//! | scalar, nested field | `$set` / `$unset` | none |
//! | append to an array | `$push: {$each}` | `$inc` |
//! | clean removal from an array | `$pullAll` / `$pull: {_id: {$in}}` | `$inc` |
//! | element changed in place | `$set: {"a.3.f": ..}` | version in the filter |
//! | any other array change | `$set` of the array | both |
//!
//! With `optimistic_concurrency`, every save that changes something checks
//! and bumps the version, and a save of an unchanged stale copy fails too.
//! [`Doc::increment`] forces a check and bump on the next save.
//!
//! ## Saving against a server
//!
//! ```no_run
//! # use odm::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
//! # #[odm(collection = "users", optimistic_concurrency)]
//! # pub struct User {
//! #     #[serde(rename = "_id")]
//! #     pub id: ObjectId,
//! #     pub status: String,
//! # }
//! # async fn run(db: mongodb::Database, id: ObjectId) -> odm::Result<()> {
//! let users = User::model(&db);
//! let mut a = users.find_by_id(id).await?.expect("stored");
//! let mut b = users.find_by_id(id).await?.expect("stored");
//! a.status = "APPROVED".into();
//! a.save().await?;                       // version 0 -> 1
//! b.status = "BANNED".into();
//! match b.save().await {                 // b was loaded at version 0
//!     Err(Error::Version(e)) => {
//!         assert_eq!(e.version, 0);
//!         b.reload().await?;             // take the newer copy, decide again
//!     }
//!     other => other?,
//! }
//! # Ok(())
//! # }
//! ```
//!
//! A failed save leaves the [`Doc`] as it was: its changes stay pending and
//! its version unchanged, so it can be reloaded or saved again.
//!
//! ## Validation
//!
//! `#[odm(min = 18)]`, `min_len`, `max_len`, `max`, `one_of(..)`,
//! `required`, custom `validate = path` on fields and on the struct, and
//! `nested` for embedded structs deriving [`Validate`]: see [`validate`].
//! They run before every insert and update; a failure sends nothing.
//!
//! ## Uniqueness
//!
//! A find-then-insert check races; a unique index does not. Declare it with
//! `#[odm(unique)]` (or `sparse`, `partial(..)`, a compound `index(..)`),
//! create it with [`sync_indexes`](crate::Model::sync_indexes), and the losing insert or save
//! gets [`Error::DuplicateKey`] naming the index and the key. See [`index`].
//!
//! ## Testing against a server
//!
//! With the `testing` feature, `odm::testing` starts a local
//! MongoDB-compatible server per test binary (or uses `MONGODB_URI`) and
//! gives each test a database of its own.
//!
//! ## Atomic operations
//!
//! | race | fix |
//! |---|---|
//! | find, then insert or update | [`Model::upsert`]: one `findOneAndUpdate` with `$set` + `$setOnInsert` |
//! | several workers take the same task | [`Model::claim`]: a conditional update, the guarded field in the filter |
//! | read-modify-write loses updates | [`Model::update_with_retry`]: version-checked save, reload and reapply |
//! | documents that must change together | [`transaction`]: retried like the driver's, `Doc`s rolled back on abort |
//!
//! ## Timestamps
//!
//! `#[odm(timestamps)]` keeps two fields: `created_at`, set when the
//! document is inserted (by a save, or `$setOnInsert` in an upsert), and
//! `updated_at`, set by every save that changes something, every upsert and
//! every claim. They are the struct fields stored as `createdAt` and
//! `updatedAt` (rename with `#[odm(timestamps(created_at = "born",
//! updated_at = "touched"))]`, BSON names), of type `odm::bson::DateTime`
//! or `Option<odm::bson::DateTime>`; a missing field or another type is a
//! compile error. odm owns them: an insert overwrites any value the struct
//! holds. Times are the client's clock, in milliseconds.
//!
//! ```
//! # use odm::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! #[derive(Debug, Clone, Serialize, Deserialize, Document)]
//! #[odm(timestamps)]
//! #[serde(rename_all = "camelCase")]
//! pub struct Note {
//!     #[serde(rename = "_id")]
//!     pub id: ObjectId,
//!     pub text: String,
//!     pub created_at: Option<odm::bson::DateTime>,
//!     pub updated_at: Option<odm::bson::DateTime>,
//! }
//! ```
//!
//! ## Errors
//!
//! [`Error`] is `#[non_exhaustive]`; the variants to match on are
//! [`Error::Version`] (a stale copy), [`Error::NotFound`],
//! [`Error::Validation`], [`Error::DuplicateKey`], [`Error::Index`] and
//! [`Error::Deserialize`] (a stored document that does not fit the type,
//! naming its id and the field). Large payloads are boxed so `odm::Result`
//! stays small; reach their fields as usual (`Err(Error::Version(e)) =>
//! e.version`).

#![warn(missing_docs)]

mod atomic;
mod codec;
mod diff;
mod doc;
mod document;
mod error;
pub mod index;
mod meta;
mod model;
mod query;
mod rawde;
mod rawser;
mod save;
mod strict;
pub mod validate;
mod version_key;
mod versioning;

#[doc(hidden)]
pub mod __private;

#[cfg(feature = "testing")]
pub mod testing;

pub use atomic::{
    transaction, Claim, DocCheckpoint, Rollback, Transaction, UpdateWithRetry, Upsert,
};
pub use doc::Doc;
pub use document::Document;
pub use error::{
    DeserializeError, DuplicateKeyError, Error, NotFoundError, Result, ValidationError,
    ValidationErrors, VersionError,
};
pub use index::{IndexError, SyncReport};
pub use meta::{Concurrency, Meta, Timestamps, Versioning};
pub use model::Model;
pub use query::{Count, Create, Find, FindOne};
pub use save::{BoxFuture, Save};
pub use validate::Validate;

/// `#[derive(Document)]`; see the [crate documentation](crate).
pub use odm_derive::Document;

/// `#[derive(Validate)]` for embedded sub-documents; see [`validate`].
pub use odm_derive::Validate;

pub use mongodb::bson;

/// Everything a model file needs: `use odm::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Doc, Document, Error, Model, Result, Validate, ValidationError, ValidationErrors,
    };
    pub use mongodb::bson::oid::ObjectId;
    pub use mongodb::bson::{doc, rawdoc};
}
