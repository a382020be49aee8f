//! Issue 9, items 1-5: each way a save lost or corrupted a write, against
//! the server. After every save the stored document loads back equal to the
//! in-memory value; a stale copy that would lose another copy's saved
//! write fails with `Error::Version` and writes nothing.
//!
//! The tests are declared here, under their names; their bodies are in one
//! file per item: `map_keys.rs` (item 1), `removals.rs` (item 2),
//! `assignments.rs` (items 3 and 4), `missing_fields.rs` (item 5) and
//! `removed_documents.rs` (found by the random histories).

mod assignments;
use crate::common;
mod map_keys;
mod missing_fields;
mod removals;
mod removed_documents;

use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;

/// Loads the stored document and checks it equals `doc` in memory, with
/// the stored version equal to `doc.version()`.
async fn assert_stored<T>(model: &Model<T>, doc: &Doc<T>)
where
    T: odm::Document + PartialEq + std::fmt::Debug,
{
    let id = doc.id().unwrap();
    let loaded = model.find_by_id(id.clone()).await.unwrap().expect("stored");
    assert_eq!(&*loaded, &**doc, "stored != in memory");
    let raw = model
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap();
    let stored_version = raw.get("__v").and_then(Bson::as_i32).map(i64::from);
    assert_eq!(stored_version, doc.version(), "stored version");
}

async fn raw<T: odm::Document>(model: &Model<T>, id: impl Into<Bson>) -> BsonDocument {
    model
        .collection()
        .find_one(doc! { "_id": id.into() })
        .await
        .unwrap()
        .unwrap()
}

// ---------------------------------------------------------------------------
// Item 1: map keys that cannot be paths (map_keys.rs)

#[tokio::test]
async fn a_map_key_that_is_not_a_path_saves_its_whole_map() {
    map_keys::a_map_key_that_is_not_a_path_saves_its_whole_map().await;
}

#[tokio::test]
async fn a_top_level_key_that_is_not_a_path_is_refused_before_sending() {
    map_keys::a_top_level_key_that_is_not_a_path_is_refused_before_sending().await;
}

// ---------------------------------------------------------------------------
// Item 2: removals judged by MongoDB's equality (removals.rs)

#[tokio::test]
async fn removing_a_value_keeps_the_equal_values_the_doc_keeps() {
    removals::removing_a_value_keeps_the_equal_values_the_doc_keeps().await;
}

#[tokio::test]
async fn a_stale_removal_cannot_pull_a_value_another_copy_pushed() {
    removals::a_stale_removal_cannot_pull_a_value_another_copy_pushed().await;
}

// ---------------------------------------------------------------------------
// Items 3 and 4: assignments and replaced sub-documents (assignments.rs)

#[tokio::test]
async fn a_same_length_assignment_makes_a_stale_whole_array_write_fail() {
    assignments::a_same_length_assignment_makes_a_stale_whole_array_write_fail().await;
}

#[tokio::test]
async fn a_sub_document_replaced_or_moved_makes_stale_positional_edits_fail() {
    assignments::a_sub_document_replaced_or_moved_makes_stale_positional_edits_fail().await;
}

// ---------------------------------------------------------------------------
// Item 5: fields the store lacks, filled in by `#[serde(default)]` (missing_fields.rs)

#[tokio::test]
async fn changes_under_a_missing_defaulted_field_set_it_whole() {
    missing_fields::changes_under_a_missing_defaulted_field_set_it_whole().await;
}

#[tokio::test]
async fn two_copies_filling_one_missing_field_do_not_lose_a_write() {
    missing_fields::two_copies_filling_one_missing_field_do_not_lose_a_write().await;
}

#[tokio::test]
async fn a_pull_before_a_missing_path_keeps_later_fills_right() {
    missing_fields::a_pull_before_a_missing_path_keeps_later_fills_right().await;
}

// ---------------------------------------------------------------------------
// Found by the random histories: writes under a removed document (removed_documents.rs)

#[tokio::test]
async fn a_stale_write_under_a_removed_document_fails_instead_of_storing_a_fragment() {
    removed_documents::a_stale_write_under_a_removed_document_fails_instead_of_storing_a_fragment()
        .await;
}
