//! The error of [`Model::sync_indexes`](crate::Model::sync_indexes)
//! (re-exported by `odm::index`).

use std::fmt;

use mongodb::bson::Document as BsonDocument;

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
    pub(crate) cause: super::Cause,
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
                super::masked_server_message(message, super::values_shown())
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
