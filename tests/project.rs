//! The project around the library: the examples' own tests, the docs, the
//! house rules (one-way layers, lints, hygiene of the generated code) and
//! authentication against a server started with `--auth`.
//!
//! One test binary of several: each module is a file (or directory) of
//! `tests/`, and the suite builds a few binaries instead of one per file
//! (each binary links the whole driver). Run one module's tests with
//! `cargo test --test project <module>::`.

mod common;
mod layering;

mod auth;
mod demo_runs;
mod docs;
mod examples_bulk;
mod examples_covered;
mod examples_index_kinds;
mod examples_kinds;
mod examples_pages;
mod examples_refs;
mod examples_schema;
mod hygiene;
mod layers;
mod layers_derive;
mod lint;
mod web_service;
