//! The core of the suite: a first save and load, every save mode and
//! versioning rule (Mongoose's own tests among them), loading and bad stored
//! data, conflicts, many-document saves, enum models and schema versions.
//! CI runs this binary under both bson releases.
//!
//! One test binary of several: each module is a file (or directory) of
//! `tests/`, and the suite builds a few binaries instead of one per file
//! (each binary links the whole driver). Run one module's tests with
//! `cargo test --test core <module>::`.

mod common;
mod enum_support;
mod mongoose_support;
mod schema_support;

mod bad_data;
mod bulk_save;
mod conflict_events;
mod conflicts;
mod doc_push;
mod enum_models;
mod errors;
mod examples_run;
mod field_mut;
mod interplay;
mod loading;
mod loading_shapes;
mod mongoose_array_rewrites;
mod mongoose_array_versioning;
mod mongoose_document;
mod mongoose_versioning;
mod read_options;
mod save_default;
mod save_modes;
mod save_regressions;
mod save_rewrite_guard;
mod save_stamped;
mod save_unchanged;
mod schema_versions;
mod skip_versioning_types;
mod smoke;
mod version_contract;
mod worked_examples;
