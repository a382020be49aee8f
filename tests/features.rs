//! The rest of the runtime's features: many-document and set-based writes,
//! sessions, shard keys, indexes, hooks, validation, the command log,
//! change streams, typed reads, pagination, aggregation, enum handles,
//! schema reads and rolling deploys, references and their rules.
//!
//! One test binary of several: each module is a file (or directory) of
//! `tests/`, and the suite builds a few binaries instead of one per file
//! (each binary links the whole driver). Run one module's tests with
//! `cargo test --test features <module>::`.

mod common;
mod enum_support;
mod schema_support;

mod aggregate;
mod change_streams;
mod command_log;
mod enum_features;
mod enum_handles;
mod find_one_lean;
mod find_stream;
mod hooks;
mod indexes_kinds;
mod indexes_partial;
mod indexes_sync;
mod indexes_unique;
mod insert_ids;
mod pagination;
mod refs;
mod refs_rules;
mod runtime_collections;
mod schema_reads;
mod schema_rolling;
mod sessions;
mod shard_keys;
mod time_types;
mod timestamps_server_clock;
mod typed_filters;
mod typed_paths;
mod typed_reads;
mod update_many;
mod validation;
mod validation_seed;
