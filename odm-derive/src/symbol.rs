//! Attribute names, in one place.

use std::fmt;

use syn::{Ident, Path};

#[derive(Copy, Clone)]
pub struct Symbol(pub &'static str);

pub const ODM: Symbol = Symbol("odm");
pub const SERDE: Symbol = Symbol("serde");

// Container attributes.
pub const COLLECTION: Symbol = Symbol("collection");
pub const VERSION_KEY: Symbol = Symbol("version_key");
pub const VERSIONING: Symbol = Symbol("versioning");
pub const OPTIMISTIC_CONCURRENCY: Symbol = Symbol("optimistic_concurrency");
pub const INCLUDE: Symbol = Symbol("include");
pub const EXCLUDE: Symbol = Symbol("exclude");
pub const TIMESTAMPS: Symbol = Symbol("timestamps");
pub const CREATED_AT: Symbol = Symbol("created_at");
pub const UPDATED_AT: Symbol = Symbol("updated_at");
pub const SERVER_CLOCK: Symbol = Symbol("server_clock");
pub const HOOKS: Symbol = Symbol("hooks");
pub const SHARD_KEY: Symbol = Symbol("shard_key");
pub const SCHEMA_VERSION: Symbol = Symbol("schema_version");
pub const MIGRATE: Symbol = Symbol("migrate");
pub const SCHEMA_KEY: Symbol = Symbol("schema_key");
pub const REFERENCED_BY: Symbol = Symbol("referenced_by");

// Field attributes.
pub const SKIP_VERSIONING: Symbol = Symbol("skip_versioning");
pub const REFERENCE: Symbol = Symbol("reference");
pub const ON_DELETE: Symbol = Symbol("on_delete");
pub const REFUSE: Symbol = Symbol("refuse");
pub const CASCADE: Symbol = Symbol("cascade");
pub const CLEAR: Symbol = Symbol("clear");
pub const PULL: Symbol = Symbol("pull");

// Index attributes (field keys, and the container's `index(..)`).
pub const UNIQUE: Symbol = Symbol("unique");
pub const INDEX: Symbol = Symbol("index");
pub const SPARSE: Symbol = Symbol("sparse");
pub const PARTIAL: Symbol = Symbol("partial");
pub const KEYS: Symbol = Symbol("keys");
pub const NAME: Symbol = Symbol("name");
// Validation (field and container `validate`, field built-ins).
pub const VALIDATE: Symbol = Symbol("validate");
pub const MIN: Symbol = Symbol("min");
pub const MAX: Symbol = Symbol("max");
pub const MIN_LEN: Symbol = Symbol("min_len");
pub const MAX_LEN: Symbol = Symbol("max_len");
pub const ONE_OF: Symbol = Symbol("one_of");
pub const REQUIRED: Symbol = Symbol("required");
pub const NESTED: Symbol = Symbol("nested");

// serde attributes that change BSON names.
pub const RENAME: Symbol = Symbol("rename");
pub const RENAME_ALL: Symbol = Symbol("rename_all");
pub const SERIALIZE: Symbol = Symbol("serialize");
pub const SKIP: Symbol = Symbol("skip");
pub const SKIP_SERIALIZING: Symbol = Symbol("skip_serializing");
pub const FLATTEN: Symbol = Symbol("flatten");
pub const INTO: Symbol = Symbol("into");
pub const REMOTE: Symbol = Symbol("remote");

// serde attributes of an enum model and its variants.
pub const TAG: Symbol = Symbol("tag");
pub const CONTENT: Symbol = Symbol("content");
pub const UNTAGGED: Symbol = Symbol("untagged");
pub const RENAME_ALL_FIELDS: Symbol = Symbol("rename_all_fields");
pub const DESERIALIZE: Symbol = Symbol("deserialize");
pub const ALIAS: Symbol = Symbol("alias");
pub const SKIP_DESERIALIZING: Symbol = Symbol("skip_deserializing");
pub const OTHER: Symbol = Symbol("other");
pub const WITH: Symbol = Symbol("with");
pub const SERIALIZE_WITH: Symbol = Symbol("serialize_with");
pub const DESERIALIZE_WITH: Symbol = Symbol("deserialize_with");

impl PartialEq<Symbol> for Ident {
    fn eq(&self, word: &Symbol) -> bool {
        self == word.0
    }
}

impl PartialEq<Symbol> for &Ident {
    fn eq(&self, word: &Symbol) -> bool {
        *self == word.0
    }
}

impl PartialEq<Symbol> for Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl PartialEq<Symbol> for &Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0)
    }
}
