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
//! let names: Vec<&str> = rides.indexes().iter().map(|i| i.name).collect();
//! assert_eq!(names, ["vehicle_id_1", "coupon_1", "rider_recent"]);
//! assert_eq!(
//!     rides.indexes()[0].to_document(),
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
//!
//! `ne`, `nin`, `not`, `exists = false` and `regex` cannot be used by a
//! partial index on any MongoDB version; `in` and `or` only from MongoDB 6.0
//! on, so odm rejects them too. Each is a compile error that says why and
//! points to the alternatives: a flag field that is true exactly when the
//! index should apply (filter on `flag = true`), or a lock around the
//! check-then-write (a keyed mutex in one process, a lease in MongoDB
//! across processes).
//!
//! Field names are Rust identifiers; the derive maps them to the stored
//! names through `#[serde(rename)]` / `rename_all`. Default index names
//! follow MongoDB: `email_1`, `a_1_b_-1`.

mod duplicate;
mod sync;

use std::fmt;

use mongodb::bson::{doc, Bson, Document as BsonDocument};

pub(crate) use duplicate::{complete_insert, index_from_message, server_details};
pub use sync::{SyncIndexes, SyncReport};

/// One declared index, as the derive records it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexSpec {
    /// The index name (MongoDB's default `email_1`, `a_1_b_-1`, or `name = ".."`).
    pub name: &'static str,
    /// `(BSON field name, 1 or -1)`, in order.
    pub keys: &'static [(&'static str, i32)],
    /// `unique`.
    pub unique: bool,
    /// `sparse`.
    pub sparse: bool,
    /// The partial filter's conditions, combined with `$and`; empty when
    /// the index is not partial.
    pub partial: &'static [Condition],
}

/// One condition of a partial filter: `path op value`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Condition {
    /// The BSON field name.
    pub path: &'static str,
    /// The operator.
    pub op: PartialOp,
    /// The operand.
    pub value: PartialValue,
}

/// The operators MongoDB accepts in a partial filter on every version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartialOp {
    /// `field = value`: equality.
    Eq,
    /// `$gt`.
    Gt,
    /// `$gte`.
    Gte,
    /// `$lt`.
    Lt,
    /// `$lte`.
    Lte,
    /// `$exists: true` (the value is `Bool(true)`).
    Exists,
    /// `$type` (the value is a type alias such as `"string"`).
    Type,
}

/// A literal operand of a partial filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PartialValue {
    /// A string.
    Str(&'static str),
    /// An integer (sent as a 32-bit integer when it fits, else 64-bit).
    Int(i64),
    /// A float.
    Float(f64),
    /// A bool.
    Bool(bool),
}

impl From<PartialValue> for Bson {
    fn from(value: PartialValue) -> Bson {
        match value {
            PartialValue::Str(s) => Bson::String(s.to_string()),
            PartialValue::Int(n) => match i32::try_from(n) {
                Ok(n) => Bson::Int32(n),
                Err(_) => Bson::Int64(n),
            },
            PartialValue::Float(f) => Bson::Double(f),
            PartialValue::Bool(b) => Bson::Boolean(b),
        }
    }
}

impl PartialOp {
    fn operator(self) -> Option<&'static str> {
        match self {
            PartialOp::Eq => None,
            PartialOp::Gt => Some("$gt"),
            PartialOp::Gte => Some("$gte"),
            PartialOp::Lt => Some("$lt"),
            PartialOp::Lte => Some("$lte"),
            PartialOp::Exists => Some("$exists"),
            PartialOp::Type => Some("$type"),
        }
    }
}

impl Condition {
    /// `{path: value}` or `{path: {$op: value}}`.
    pub fn to_document(&self) -> BsonDocument {
        let value = Bson::from(self.value);
        match self.op.operator() {
            None => doc! { self.path: value },
            Some(op) => doc! { self.path: { op: value } },
        }
    }
}

impl IndexSpec {
    /// The key pattern, e.g. `{a: 1, b: -1}`.
    pub fn keys_document(&self) -> BsonDocument {
        self.keys
            .iter()
            .map(|(field, dir)| (field.to_string(), Bson::Int32(*dir)))
            .collect()
    }

    /// The `partialFilterExpression`: one condition as is, several under
    /// `$and`; `None` when the index is not partial.
    pub fn partial_filter(&self) -> Option<BsonDocument> {
        match self.partial {
            [] => None,
            [one] => Some(one.to_document()),
            many => {
                let terms: Vec<Bson> = many.iter().map(|c| c.to_document().into()).collect();
                Some(doc! { "$and": terms })
            }
        }
    }

    /// The index as `createIndexes` takes it: `key`, `name`, and `unique`,
    /// `sparse`, `partialFilterExpression` when set.
    pub fn to_document(&self) -> BsonDocument {
        let mut spec = doc! { "key": self.keys_document(), "name": self.name };
        if self.unique {
            spec.insert("unique", true);
        }
        if self.sparse {
            spec.insert("sparse", true);
        }
        if let Some(filter) = self.partial_filter() {
            spec.insert("partialFilterExpression", filter);
        }
        spec
    }
}

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
                "the server refused to create index \"{}\" {} on collection \"{}\" (code {code}): {message}",
                self.index, self.declared, self.collection
            ),
        }
    }
}

impl std::error::Error for IndexError {}
