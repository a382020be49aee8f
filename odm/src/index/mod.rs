//! Declared indexes: what `#[odm(unique)]`, `#[odm(index)]` and
//! `#[odm(index(keys(..), ..))]` generate, and [`Model::sync_indexes`](crate::Model::sync_indexes)
//! that creates them.
//!
//! Only a unique index in the database makes uniqueness race-free: a
//! find-then-insert check lets two concurrent requests both see "no such
//! user" and both insert. With `#[odm(unique)]` and
//! [`sync_indexes`](crate::Model::sync_indexes) the second insert fails with
//! [`Error::DuplicateKey`](crate::Error::DuplicateKey) instead.
//!
//! ```
//! use odm::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, Clone, Serialize, Deserialize, Document)]
//! #[odm(collection = "rides", index(keys(rider = 1, started = -1), name = "rider_recent"))]
//! pub struct Ride {
//!     #[serde(rename = "_id")]
//!     pub id: ObjectId,
//!     pub rider: String,
//!     pub started: i64,
//!     // At most one ACTIVE ride per vehicle; any number of COMPLETE ones.
//!     #[odm(unique, partial(status = "ACTIVE"))]
//!     pub vehicle_id: String,
//!     pub status: String,
//!     // Unique among the documents that have it.
//!     #[odm(unique, sparse)]
//!     #[serde(skip_serializing_if = "Option::is_none")]
//!     pub coupon: Option<String>,
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> odm::Result<()> {
//! # let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/").await?;
//! let rides = Ride::model(&client.database("app"));
//! let declared = rides.indexes();
//! let names: Vec<&str> = declared.iter().map(|i| i.get_str("name").unwrap()).collect();
//! assert_eq!(names, ["vehicle_id_1", "coupon_1", "rider_recent"]);
//! assert_eq!(
//!     declared[0],
//!     doc! {
//!         "key": { "vehicle_id": 1 },
//!         "name": "vehicle_id_1",
//!         "unique": true,
//!         "partialFilterExpression": { "status": "ACTIVE" },
//!     }
//! );
//! // At start-up: rides.sync_indexes().await?;
//! # client.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! # Partial filters
//!
//! MongoDB accepts only a few operators in a `partialFilterExpression`, and
//! odm accepts exactly those, checked at compile time:
//!
//! | written | sent |
//! |---|---|
//! | `status = "ACTIVE"` (string, integer, float or bool) | `{status: "ACTIVE"}` |
//! | `age(gt = 5)`, `gte`, `lt`, `lte` | `{age: {$gt: 5}}` |
//! | `email(exists = true)` | `{email: {$exists: true}}` |
//! | `email(type = "string")` | `{email: {$type: "string"}}` |
//! | several conditions | `{$and: [{..}, {..}]}` |
//! | `status(in = ["ACTIVE", "PENDING"])` (MongoDB 6.0+) | `{status: {$in: ["ACTIVE", "PENDING"]}}` |
//! | `or(a = 1, b(gt = 2), and(c = 3, d = 4))` (MongoDB 6.0+) | `{$or: [{a: 1}, {b: {$gt: 2}}, {$and: [..]}]}` |
//!
//! MongoDB accepts `$in` and `$or` in a partial filter from version 6.0 on.
//! [`sync_indexes`](crate::Model::sync_indexes) reads the server's version
//! before it creates anything: on an older server (Amazon DocumentDB
//! reports 5.0) it creates none of the model's indexes and fails with
//! [`Error::Index`](crate::Error::Index), [`IndexErrorKind::ServerTooOld`]
//! naming the version needed.
//!
//! ```
//! # use odm::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! // At most one open fuel request per vehicle, whichever of the open
//! // statuses it has; any number of DONE or CANCELLED ones.
//! #[derive(Debug, Clone, Serialize, Deserialize, Document)]
//! #[odm(index(
//!     keys(vehicle_id = 1),
//!     unique,
//!     partial(status(in = ["ACTIVE", "PENDING", "APPROVED"])),
//!     name = "one_open_request",
//! ))]
//! pub struct FuelRequest {
//!     #[serde(rename = "_id")]
//!     pub id: ObjectId,
//!     pub vehicle_id: String,
//!     pub status: String,
//! }
//! ```
//!
//! `ne`, `nin`, `not`, `nor`, `exists = false`, `regex` and `expr` cannot
//! be used by a partial index on any MongoDB version. Each is a compile
//! error that says why and points to the alternatives: a flag field that is
//! true exactly when the index should apply (filter on `flag = true`), or a
//! lock around the check-then-write ([`lock::KeyedMutex`](crate::lock::KeyedMutex)
//! in one process, [`lock::Leases`](crate::lock::Leases) across processes).
//!
//! # Index kinds
//!
//! A key in `keys(..)` is `1`, `-1`, `"text"`, `"2dsphere"` or `"hashed"`,
//! and an index takes the options of its kind:
//!
//! | written | sent |
//! |---|---|
//! | `#[odm(index, expire_after = 3600)]` on a date field | a TTL index: `expireAfterSeconds: 3600` |
//! | `#[odm(unique, collation(locale = "en", strength = 2))]` | `collation: {locale: "en", strength: 2}`: unique whatever the case |
//! | `index(keys(loc = "2dsphere"))` | `{loc: "2dsphere"}` |
//! | `index(keys(title = "text", body = "text"), weights(title = 10), default_language = "french")` | a text index, `weights`, `default_language` (also `language_override = ".."`) |
//! | `index(keys(tenant = "hashed"))` | `{tenant: "hashed"}` |
//! | `index(wildcard)`, `index(wildcard(attrs))` | `{"$**": 1}`, `{"attrs.$**": 1}` |
//!
//! `collation(..)` takes `locale` (required), `strength = 1..5`,
//! `case_level`, `case_first = "upper" | "lower" | "off"` and
//! `numeric_ordering`; it qualifies a container `index(..)` too. What
//! MongoDB refuses does not compile: `expire_after` on a compound,
//! wildcard, text, 2dsphere or hashed index, text options without a text
//! key or a weight on a field that is not one, a `unique` hashed or
//! wildcard index, two hashed keys, two text indexes on one collection.
//!
//! [`sync_indexes`](crate::Model::sync_indexes) compares every option with
//! the index on the collection: a different TTL, collation, weight or
//! language is an [`IndexErrorKind::Conflict`] naming it, and nothing is
//! changed (collation options you do not declare are not compared: the
//! server fills in the locale's defaults). It creates the kinds some
//! servers lack first (text, hashed, wildcard, 2dsphere, collation, TTL,
//! then the plain indexes), so a server that refuses one, e.g. the local
//! test server without text or hashed indexes, refuses it with
//! [`IndexErrorKind::Refused`] before the model's other indexes exist.
//!
//! ```
//! # use odm::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! #[derive(Debug, Clone, Serialize, Deserialize, Document)]
//! #[odm(
//!     collection = "sessions",
//!     index(keys(title = "text", notes = "text"), weights(title = 10), name = "search"),
//! )]
//! pub struct Session {
//!     #[serde(rename = "_id")]
//!     pub id: ObjectId,
//!     // Deleted by the server an hour after it was last touched.
//!     #[odm(index, expire_after = 3600)]
//!     pub touched: odm::bson::DateTime,
//!     // `ann` and `ANN` collide.
//!     #[odm(unique, collation(locale = "en", strength = 2))]
//!     pub handle: String,
//!     pub title: String,
//!     pub notes: String,
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> odm::Result<()> {
//! # let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/").await?;
//! let declared = Session::model(&client.database("app")).indexes();
//! assert_eq!(
//!     declared,
//!     [
//!         doc! { "key": { "touched": 1 }, "name": "touched_1", "expireAfterSeconds": 3600 },
//!         doc! {
//!             "key": { "handle": 1 }, "name": "handle_1", "unique": true,
//!             "collation": { "locale": "en", "strength": 2 },
//!         },
//!         doc! {
//!             "key": { "title": "text", "notes": "text" }, "name": "search",
//!             "weights": { "title": 10 },
//!         },
//!     ]
//! );
//! # client.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! The table in the crate guide lists `expire_after` and `collation(..)`
//! with the other field attributes; `examples/index_kinds.rs` runs them.
//!
//! Field names are Rust identifiers; the derive maps them to the stored
//! names through `#[serde(rename)]` / `rename_all`. Default index names
//! follow MongoDB: `email_1`, `a_1_b_-1`.

pub(crate) mod kinds;
mod server;
pub(crate) mod spec;
mod sync;

use std::fmt;

use mongodb::bson::Document as BsonDocument;

pub(crate) use spec::IndexSpec;
pub use sync::{SyncIndexes, SyncReport};

/// [`Model::sync_indexes`](crate::Model::sync_indexes) could not make a
/// declared index exist as declared.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct IndexError {
    /// The collection.
    pub collection: String,
    /// The name of the declared index.
    pub index: String,
    /// The declared index, as it would be sent to `createIndexes`.
    pub declared: BsonDocument,
    /// What went wrong.
    pub kind: IndexErrorKind,
    /// The driver's error, when the server refused: the
    /// [`source`](std::error::Error::source).
    pub(crate) cause: crate::error::Cause,
}

/// Why a declared index could not be synced.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum IndexErrorKind {
    /// An index already on the collection is in the way: it has the
    /// declared name but other options, or the declared keys and options
    /// under another name. Nothing was dropped or created; drop or rename
    /// one of the two by hand.
    Conflict {
        /// The index on the collection, as `listIndexes` returned it.
        existing: BsonDocument,
        /// Every difference, e.g. `unique: declared true, existing false`.
        differences: Vec<String>,
    },
    /// The server refused to create the index (for example an option or
    /// partial-filter operator this server version does not support).
    Refused {
        /// The server's error code (0 when there was none).
        code: i32,
        /// The server's message.
        message: String,
    },
    /// The index uses a partial-filter operator the server's version does
    /// not accept (`$in` or `$or` before MongoDB 6.0; Amazon DocumentDB
    /// reports 5.0). Found before anything was sent: none of the model's
    /// indexes was created.
    ServerTooOld {
        /// The first MongoDB version that accepts the index, e.g. `"6.0"`.
        required: String,
        /// The version the server reports (`buildInfo`).
        server: String,
        /// The operators that need the newer version, e.g. `["$in"]`.
        operators: Vec<String>,
    },
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            IndexErrorKind::Conflict {
                existing,
                differences,
            } => write!(
                f,
                "index \"{}\" on collection \"{}\" conflicts with an existing index ({}); \
                 declared {}, existing {}; nothing was changed: drop or rename one of them",
                self.index,
                self.collection,
                differences.join("; "),
                self.declared,
                existing
            ),
            IndexErrorKind::Refused { code, message } => write!(
                f,
                "the server refused to create index \"{}\" {} on collection \"{}\" (code {code}): {}",
                self.index,
                self.declared,
                self.collection,
                crate::error::masked_server_message(message, crate::values_shown())
            ),
            IndexErrorKind::ServerTooOld {
                required,
                server,
                operators,
            } => write!(
                f,
                "index \"{}\" {} on collection \"{}\" needs MongoDB {required} or later: its \
                 partialFilterExpression uses {}, which the server (version {server}) does not accept \
                 in a partial index; Amazon DocumentDB, reporting 5.0, does not either. No index was \
                 created. Upgrade the server, or declare the index without `in` / `or` and guard the \
                 check-then-write with a lease (odm::lock::Leases)",
                self.index,
                self.declared,
                self.collection,
                operators.join(" and ")
            ),
        }
    }
}

impl std::error::Error for IndexError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .get()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
