//! Races and faults: many tasks over many rounds with counted outcomes
//! (concurrent saves, claims, upserts, retries, transactions, locks,
//! references), the fault matrix, the random histories and the soak.
//!
//! One test binary of several: each module is a file (or directory) of
//! `tests/`, and the suite builds a few binaries instead of one per file
//! (each binary links the whole driver). Run one module's tests with
//! `cargo test --test races <module>::`.

mod common;
mod mongoose_support;

mod atomic_claim;
mod atomic_retry;
mod atomic_timestamps;
mod atomic_transaction;
mod atomic_upsert;
mod bulk_fenced;
mod bulk_random;
mod bulk_refill;
mod concurrency;
mod concurrency_nested_paths;
mod faults;
mod faults_atomic;
mod faults_bulk;
mod lock_archived_email;
mod lock_concern;
mod lock_fenced;
mod lock_leases;
mod mongoose_concurrency;
mod mongoose_concurrency_modes;
mod mongoose_discriminators;
mod mongoose_interop;
mod refs_race;
mod save_random;
mod soak;
