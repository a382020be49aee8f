//! Save correctness under random histories (issue 9): a seeded generator of
//! mutations over fourteen model shapes (two of them enum models, whose
//! changes include changes of kind, two with `timestamps`), with a second,
//! stale copy interleaved.
//!
//! After every save: the stored document, loaded fresh, equals the in-memory
//! value bit for bit (`-0.0` is not `0.0`, `Int32 1` is not `1.0`), the
//! stored version equals `version()` and nothing is pending. A stale copy's
//! save either fails with `Error::Version` and leaves the store and the copy
//! untouched, or lands exactly as its `(filter, update)` applied by MongoDB
//! would (the update interpreter, `odm_testing::update`), without losing a
//! saved write of the other copy beyond what save-rules.md allows.
//!
//! One shape (`shapes/versioned.rs`, issue 31) stores each document
//! as an older release of its model did (schema versions 0 to 3): loads
//! upgrade it, and the first save writes the upgrade with the edits.
//!
//! Two shapes (`shapes/stamped.rs`) declare `#[odm(timestamps)]`, one with
//! the application's clock, one with the server's (`server_clock`, renamed
//! fields, `optimistic_concurrency`); their changes sometimes set a stamp
//! field by hand. Beside stored == memory, every save is checked as a
//! stamp (`stamps.rs`): `create` writes both fields with one time, a save
//! that writes `$set`s `updatedAt` to a time taken during it (a hand-set
//! one replaced), one that writes nothing stamps nothing, `createdAt` is
//! never stamped again. A stale copy's stamp overwriting the other copy's
//! is the later save's time, not a lost write: the stale checks compare
//! `updatedAt` as a stamp and every other field as before.
//!
//! `ODM_RANDOM_SEED` (decimal or `0x` hex) repeats a run: history 0 of every
//! shape uses that seed, history `i` `splitmix64(seed + i)`; a failure
//! prints its history's own seed, so `ODM_RANDOM_SEED=<it>
//! ODM_RANDOM_HISTORIES=1 cargo test --test races save_random::<shape test>`
//! replays just it. `ODM_RANDOM_HISTORIES` is the total over all shapes
//! (default 1000). Without `ODM_RANDOM_SEED` the seed is new each run,
//! except under `CI`, which replays a fixed seed (`CI_SEED`).
//!
//! One test per shape (`random_*`), each running its histories four at a
//! time against its own database; a failing test prints every distinct
//! failure kind once, with its shortest example (seed, step, both copies'
//! changes and updates, the stored documents). HashMap iteration order is
//! not seeded, so a replay can order a map's keys differently.
//!
//! The deterministic `regression_*` tests at the end are the cases listed
//! in issue 9 (their bodies are in `regressions.rs`).
//!
//! The files: `shapes/` (one file per model shape), `generator.rs` (the
//! seeded draws), `history.rs` (one history), `mutations.rs` (a copy's
//! changes before a save), `checks.rs` (stored == memory), `stale.rs`
//! (what a stale save may do to the other copy's writes), `stamps.rs` (the
//! `timestamps` fields), `compare.rs` and `show.rs` (BSON equality and
//! printing), `run.rs` (seed, workers, the failure report),
//! `regressions.rs`.

use crate::common;

mod checks;
mod compare;
mod generator;
mod history;
mod mutations;
mod regressions;
mod run;
mod shapes;
mod show;
mod stale;
mod stamps;

use run::run;
use shapes::{
    Defaults, Floats, Grids, Kinds, KindsOc, Maps, MongoosePost, Nested, NestedOc, OptionId,
    Stamped, StampedOc, SubDocs, Versioned,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_maps() {
    run::<Maps>().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_floats() {
    run::<Floats>().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_defaults() {
    run::<Defaults>().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_nested() {
    run::<Nested>().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_nested_optimistic() {
    run::<NestedOc>().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_subdocs() {
    run::<SubDocs>().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_arrays_of_arrays() {
    run::<Grids>().await;
}

/// Issue 9, item 6: the `Doc` records the `_id` generated on insert.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_option_id() {
    run::<OptionId>().await;
}

/// Issue 21: documents in Mongoose's shape, their `__v` an Int32 kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_mongoose_documents() {
    run::<MongoosePost>().await;
}

/// Issue 33: enum models, whose changes include changes of kind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_kinds() {
    run::<Kinds>().await;
}

/// Issue 33: enum models under `optimistic_concurrency`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_kinds_optimistic() {
    run::<KindsOc>().await;
}

/// Issue 31: documents stored at older schema versions, upgraded on load,
/// the upgrade written by the first save beside the edits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_older_schema_versions() {
    run::<Versioned>().await;
}

/// `#[odm(timestamps)]`: every save that writes stamps `updatedAt`, a
/// date set by hand in it included, from the application's clock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_timestamps() {
    run::<Stamped>().await;
}

/// `timestamps(server_clock)` with renamed fields, under
/// `optimistic_concurrency`: the stamps are the server's time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_timestamps_server_clock() {
    run::<StampedOc>().await;
}

// ---------------------------------------------------------------------------
// Issue 9's cases, one by one (regressions.rs)

#[tokio::test]
async fn regression_map_keys_that_are_not_paths() {
    regressions::map_keys_that_are_not_paths().await;
}

#[tokio::test]
async fn regression_removing_zero_keeps_negative_zero() {
    regressions::removing_zero_keeps_negative_zero().await;
}

#[tokio::test]
async fn regression_removing_int32_one_keeps_double_and_string() {
    regressions::removing_int32_one_keeps_double_and_string().await;
}

#[tokio::test]
async fn regression_stale_removal_after_push_of_an_equal_value() {
    regressions::stale_removal_after_push_of_an_equal_value().await;
}

#[tokio::test]
async fn regression_assignment_then_stale_insert_at_the_front() {
    regressions::assignment_then_stale_insert_at_the_front().await;
}

#[tokio::test]
async fn regression_moved_sub_document_then_stale_positional_edit() {
    regressions::moved_sub_document_then_stale_positional_edit().await;
}

#[tokio::test]
async fn regression_replaced_sub_document_then_stale_positional_edit() {
    regressions::replaced_sub_document_then_stale_positional_edit().await;
}

#[tokio::test]
async fn regression_push_on_a_missing_defaulted_vec() {
    regressions::push_on_a_missing_defaulted_vec().await;
}

#[tokio::test]
async fn regression_one_field_of_a_missing_defaulted_struct() {
    regressions::one_field_of_a_missing_defaulted_struct().await;
}

#[tokio::test]
async fn regression_in_place_edit_of_a_missing_defaulted_array() {
    regressions::in_place_edit_of_a_missing_defaulted_array().await;
}

/// Issue 9, item 6: the `Doc` records the `_id` generated on insert.
#[tokio::test]
async fn regression_option_id_generated_on_insert() {
    regressions::option_id_generated_on_insert().await;
}
