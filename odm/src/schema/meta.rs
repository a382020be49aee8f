//! What `#[derive(Document)]` records about a model: plain data, read by the
//! generic runtime code.

use mongodb::bson::Document as BsonDocument;

use super::index_spec::IndexSpec;
use crate::codec::Hidden;

/// How `optimistic_concurrency` was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concurrency {
    /// Not declared: Mongoose's default array versioning.
    Off,
    /// `optimistic_concurrency`: every save that changes something is checked.
    All,
    /// `optimistic_concurrency(include(..))`: dotted BSON paths of the
    /// checked fields (`$*` for any map key).
    Include(&'static [&'static str]),
    /// `optimistic_concurrency(exclude(..))`: dotted BSON paths of the
    /// unchecked fields (`$*` for any map key).
    Exclude(&'static [&'static str]),
}

/// The versioning rules of one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versioning {
    /// Name of the version field in stored documents; `None` with `versioning = false`.
    pub key: Option<&'static str>,
    /// The `optimistic_concurrency` mode.
    pub concurrency: Concurrency,
    /// BSON names of `skip_versioning` fields.
    pub skip: &'static [&'static str],
}

impl Versioning {
    /// Mongoose's defaults: `__v`, array versioning, nothing skipped.
    pub const DEFAULT: Versioning = Versioning {
        key: Some("__v"),
        concurrency: Concurrency::Off,
        skip: &[],
    };
}

/// Everything the derive knows about a model type.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    /// The Rust type name.
    pub name: &'static str,
    /// The collection the documents live in.
    pub collection: &'static str,
    /// Versioning rules.
    pub versioning: Versioning,
    /// `(rust name, BSON name)` of every serialized field, in declaration order.
    pub fields: &'static [(&'static str, &'static str)],
    /// The declared indexes: field ones in field order, then container ones.
    pub indexes: &'static [IndexSpec],
    /// `#[odm(timestamps)]`: the BSON names of the two timestamp fields.
    pub timestamps: Option<Timestamps>,
    /// `#[odm(shard_key(..))]`: the BSON names of the shard key fields.
    pub shard_key: &'static [&'static str],
    /// `#[odm(hooks)]`: the model implements [`Hooks`](crate::Hooks).
    pub hooks: bool,
    /// An enum model (`#[serde(tag = "..")]`): its kind key and kinds;
    /// `None` for a struct.
    pub kinds: Option<super::kind::Kinds>,
    /// `#[odm(schema_version = N, migrate = path)]`: the schema version
    /// stored documents are upgraded to on load (the steps are
    /// [`Schema::__odm_migrate`](super::Schema::__odm_migrate)).
    pub schema: Option<SchemaVersion>,
}

/// A model's schema version, as `#[odm(schema_version = N, migrate =
/// path, schema_key = "..")]` declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaVersion {
    /// The stored field holding a document's schema version (`__sv`
    /// unless `schema_key = ".."`).
    pub key: &'static str,
    /// The model's schema version (at least 1).
    pub current: u32,
}

/// The fields `#[odm(timestamps)]` maintains, by BSON name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamps {
    /// Set once, when the document is inserted (`createdAt` unless renamed).
    pub created_at: &'static str,
    /// Set on every write that changes the document (`updatedAt` unless renamed).
    pub updated_at: &'static str,
    /// The times come from the server's clock (`timestamps(server_clock)`),
    /// not the application's.
    pub server_clock: bool,
}

impl Meta {
    /// The top-level keys of a stored document that are odm's (hidden
    /// from the value).
    pub(crate) fn hidden(&self) -> Hidden {
        Hidden {
            version: self.versioning.key,
            schema: self.schema.map(|s| s.key),
            kind: None,
        }
    }

    /// The keys of the index named `name`: `_id_`, or one the model
    /// declares; `None` for any other.
    pub(crate) fn index_keys(&self, name: &str) -> Option<BsonDocument> {
        if name == "_id_" {
            return Some(mongodb::bson::doc! { "_id": 1 });
        }
        let spec = self.indexes.iter().find(|i| i.name == name)?;
        Some(spec.keys_document())
    }
}
