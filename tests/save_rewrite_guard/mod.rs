//! The rewrite guard (issue 21, save-rules.md): a save that replaces
//! or removes a whole array or document requires the stored value to be
//! what the copy loaded, so it never drops an in-place edit it did not
//! see; in-place edits of different elements and concurrent pushes still
//! both land.
//!
//! The tests of the stored field order (a map reordered in memory, a copy
//! saved untouched) have their bodies in `field_order.rs`; those of the
//! positional guard (issue 35: an in-place edit of an element requires the
//! element as loaded) in `positional.rs`.

use crate::common;
mod field_order;
mod positional;

use std::collections::BTreeMap;
use std::future::IntoFuture;

use common::{element_is, in_place, rewriting, stored, two_copies, with_parents};
use odm::bson::{doc, Bson};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rewrite_tags")]
struct Tagged {
    #[serde(rename = "_id")]
    id: ObjectId,
    tags: Vec<String>,
}

fn strings(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

fn expect_version(r: odm::Result<()>) {
    assert!(matches!(r, Err(odm::Error::Version(_))), "{r:?}");
}

// The repro: A removes the last element and inserts `c` before it
// (an in-place `$set tags.4`, checked, not bumped); B, loaded before, sorts.
#[tokio::test]
async fn a_stale_sort_does_not_drop_an_in_place_edit() {
    let t = TestDb::new().await;
    let m = Tagged::model(&t.db);
    let id = ObjectId::new();
    let loaded = strings(&["c", "b", "b", "c", "d"]);
    m.create(Tagged {
        id,
        tags: loaded.clone(),
    })
    .await
    .unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.tags.pop();
    a.tags.insert(4, "c".into());
    assert_eq!(
        a.changes(),
        Some((
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_is("tags", 4, "d")]
            ),
            doc! { "$set": { "tags.4": "c" } }
        ))
    );
    a.save().await.unwrap();
    b.tags.sort();
    assert_eq!(
        b.changes(),
        Some((
            rewriting(doc! { "_id": id, "__v": 0 }, "tags", loaded.clone()),
            doc! { "$set": { "tags": ["b", "b", "c", "c", "d"] }, "$inc": { "__v": 1 } }
        ))
    );
    expect_version(b.save().await);
    // A's edit is kept, and so is B's pending sort.
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "tags": ["c", "b", "b", "c", "c"], "__v": 0 }
    );
    assert_eq!(b.tags, strings(&["b", "b", "c", "c", "d"]));
    // Reloaded, B sorts what is stored.
    b.reload().await.unwrap();
    b.tags.sort();
    b.save().await.unwrap();
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "tags": ["b", "b", "c", "c", "c"], "__v": 1 }
    );
    t.finish().await;
}

// Default mode's promise holds: edits of different elements in place and
// pushes of two copies all land (the guard is only on rewrites).
#[tokio::test]
async fn in_place_edits_and_pushes_of_two_copies_still_land() {
    let t = TestDb::new().await;
    let m = Tagged::model(&t.db);
    let id = ObjectId::new();
    m.create(Tagged {
        id,
        tags: strings(&["a", "b", "c"]),
    })
    .await
    .unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.tags[0] = "x".into();
    b.tags[2] = "z".into();
    a.save().await.unwrap();
    b.save().await.unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.tags.push("p".into());
    b.tags.push("q".into());
    a.save().await.unwrap();
    b.save().await.unwrap();
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "tags": ["x", "b", "z", "p", "q"], "__v": 2 }
    );
    t.finish().await;
}

// Many rounds of an in-place edit racing a stale rewrite of the same array:
// exactly one of the two lands each round, and the stored array is the
// winner's, never a rewrite over an edit it did not see.
#[tokio::test]
async fn an_edit_racing_a_stale_rewrite_never_both_land() {
    let t = TestDb::new().await;
    let m = Tagged::model(&t.db);
    let rounds = 24;
    let (mut edit_won, mut rewrite_won) = (0, 0);
    for round in 0..rounds {
        let id = ObjectId::new();
        m.create(Tagged {
            id,
            tags: strings(&["d", "a", "c", "b"]),
        })
        .await
        .unwrap();
        let (mut a, mut b) = two_copies(&m, id).await;
        a.tags[1] = format!("e{round}");
        b.tags.sort();
        let (ra, rb) = tokio::join!(a.save().into_future(), b.save().into_future());
        let stored = stored(&m, id).await;
        match (ra.is_ok(), rb.is_ok()) {
            (true, false) => {
                expect_version(rb);
                edit_won += 1;
                assert_eq!(
                    stored.get_array("tags").unwrap()[1],
                    Bson::from(&*a.tags[1])
                );
            }
            (false, true) => {
                expect_version(ra);
                rewrite_won += 1;
                assert_eq!(stored.get_array("tags").unwrap().len(), 4);
                assert_eq!(stored.get_array("tags").unwrap()[0], Bson::from("a"));
            }
            other => panic!("round {round}: both or neither landed: {other:?}, stored {stored}"),
        }
    }
    assert_eq!(edit_won + rewrite_won, rounds);
    eprintln!("edit won {edit_won}, rewrite won {rewrite_won} of {rounds}");
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Profile {
    name: String,
    city: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rewrite_profiles")]
struct Account {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    profile: Option<Profile>,
    labels: BTreeMap<String, i32>,
}

fn account(id: ObjectId) -> Account {
    Account {
        id,
        profile: Some(Profile {
            name: "Ann".into(),
            city: "Oslo".into(),
        }),
        labels: BTreeMap::from([("k".to_string(), 1)]),
    }
}

// `$unset` of a parent over a field another copy edited in place: the
// unset requires the sub-document it loaded, so the edit is not dropped.
#[tokio::test]
async fn unsetting_a_parent_does_not_drop_an_edit_under_it() {
    let t = TestDb::new().await;
    let m = Account::model(&t.db);
    let id = ObjectId::new();
    m.create(account(id)).await.unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.profile.as_mut().unwrap().city = "Rome".into();
    a.save().await.unwrap();
    b.profile = None;
    assert_eq!(
        b.changes(),
        Some((
            rewriting(
                doc! { "_id": id },
                "profile",
                doc! { "name": "Ann", "city": "Oslo" }
            ),
            doc! { "$unset": { "profile": "" }, "$inc": { "__v": 1 } }
        ))
    );
    expect_version(b.save().await);
    assert_eq!(
        stored(&m, id).await.get_document("profile").unwrap(),
        &doc! { "name": "Ann", "city": "Rome" }
    );
    // With nothing edited under it since, the unset lands.
    b.reload().await.unwrap();
    b.profile = None;
    b.save().await.unwrap();
    assert!(!stored(&m, id).await.contains_key("profile"));
    t.finish().await;
}

// A map saved whole (a key that cannot be a path) over another copy's
// in-place edit of one of its keys.
#[tokio::test]
async fn a_map_saved_whole_does_not_drop_an_edit_of_a_key() {
    let t = TestDb::new().await;
    let m = Account::model(&t.db);
    let id = ObjectId::new();
    m.create(account(id)).await.unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    *a.labels.get_mut("k").unwrap() = 7;
    assert_eq!(
        a.changes(),
        Some((
            with_parents(doc! { "_id": id }, &["labels"]),
            doc! { "$set": { "labels.k": 7 } }
        ))
    );
    a.save().await.unwrap();
    b.labels.insert("a.b".into(), 2);
    assert_eq!(
        b.changes(),
        Some((
            rewriting(doc! { "_id": id, "__v": 0 }, "labels", doc! { "k": 1 }),
            doc! { "$set": { "labels": { "a.b": 2, "k": 1 } }, "$inc": { "__v": 1 } }
        ))
    );
    expect_version(b.save().await);
    assert_eq!(
        stored(&m, id).await.get_document("labels").unwrap(),
        &doc! { "k": 7 }
    );
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Line {
    #[serde(rename = "_id")]
    id: ObjectId,
    qty: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rewrite_orders")]
struct Order {
    #[serde(rename = "_id")]
    id: ObjectId,
    lines: Vec<Line>,
}

// The stored elements hold a field the model does not know and another
// field order: the guard compares with the stored bytes as read, so a
// fresh copy's rewrite lands (and so does a second one from the same Doc).
#[tokio::test]
async fn a_fresh_rewrite_lands_on_a_document_the_model_does_not_round_trip() {
    let t = TestDb::new().await;
    let m = Order::model(&t.db);
    let id = ObjectId::new();
    let (x, y) = (ObjectId::new(), ObjectId::new());
    m.collection()
        .insert_one(doc! {
            "_id": id,
            "lines": [
                { "qty": 2, "_id": x, "note": "gift" },
                { "qty": 1, "_id": y },
            ],
            "__v": 0,
        })
        .await
        .unwrap();
    let mut a = m.find_by_id(id).await.unwrap().unwrap();
    a.lines[0].qty = 3;
    a.save().await.unwrap();
    a.lines.reverse();
    let (filter, _) = a.changes().unwrap();
    assert_eq!(
        filter.get("lines"),
        Some(&Bson::from(doc! { "$eq": [
            { "qty": 3, "_id": x, "note": "gift" },
            { "qty": 1, "_id": y },
        ] }))
    );
    a.save().await.unwrap();
    a.lines.reverse();
    a.save().await.unwrap();
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "lines": [{ "_id": x, "qty": 3 }, { "_id": y, "qty": 1 }], "__v": 2 }
    );
    t.finish().await;
}

// A large array: the guard carries the loaded array, and a rewrite with
// nothing edited since lands; one element edited in place makes it fail.
#[tokio::test]
async fn a_rewrite_of_a_large_array() {
    let t = TestDb::new().await;
    let m = Tagged::model(&t.db);
    let id = ObjectId::new();
    let tags: Vec<String> = (0..2_000).map(|i| format!("t{i:05}")).collect();
    m.create(Tagged { id, tags }).await.unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.tags.reverse();
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(1));
    let (mut a, mut c) = two_copies(&m, id).await;
    c.tags[1_000] = "edited".into();
    c.save().await.unwrap();
    a.tags.sort();
    expect_version(a.save().await);
    b.tags.truncate(10);
    expect_version(b.save().await);
    let tags = stored(&m, id).await.get_array("tags").unwrap().clone();
    assert_eq!(tags.len(), 2_000);
    assert_eq!(tags[1_000], Bson::from("edited"));
    t.finish().await;
}

// ---------------------------------------------------------------------------
// The stored field order (field_order.rs)

#[tokio::test]
async fn a_map_reordered_in_memory_is_rewritten_against_the_stored_order() {
    field_order::a_map_reordered_in_memory_is_rewritten_against_the_stored_order().await;
}

#[tokio::test]
async fn a_copy_saved_untouched_keeps_the_stored_order_and_missing_fields() {
    field_order::a_copy_saved_untouched_keeps_the_stored_order_and_missing_fields().await;
}

#[tokio::test]
async fn a_push_onto_an_array_stored_in_another_order_keeps_that_order_for_the_guard() {
    field_order::a_push_onto_an_array_stored_in_another_order_keeps_that_order_for_the_guard()
        .await;
}

// ---------------------------------------------------------------------------
// The positional guard (positional.rs)

#[tokio::test]
async fn positional_pop_and_push_then_a_stale_assignment() {
    positional::pop_and_push_then_a_stale_assignment().await;
}

#[tokio::test]
async fn positional_pop_and_push_then_a_stale_edit() {
    positional::pop_and_push_then_a_stale_edit().await;
}

#[tokio::test]
async fn positional_an_assignment_then_a_stale_edit_after_another_save() {
    positional::an_assignment_then_a_stale_edit_after_another_save().await;
}

#[tokio::test]
async fn positional_sub_documents_edited_in_place() {
    positional::sub_documents_edited_in_place().await;
}

#[tokio::test]
async fn positional_null_document_and_nan_elements() {
    positional::null_document_and_nan_elements().await;
}

#[tokio::test]
async fn positional_the_guard_alone_tells_a_stale_copy_from_a_deleted_document() {
    positional::the_guard_alone_tells_a_stale_copy_from_a_deleted_document().await;
}

#[tokio::test]
async fn positional_a_batch_carries_the_guard_bulk_write() {
    positional::a_batch_carries_the_guard(odm::__private::BulkPath::BulkWrite).await;
}

#[tokio::test]
async fn positional_a_batch_carries_the_guard_commands() {
    positional::a_batch_carries_the_guard(odm::__private::BulkPath::Commands).await;
}

#[tokio::test]
async fn positional_a_pop_and_push_racing_an_edit_of_the_element() {
    positional::a_pop_and_push_racing_an_edit_of_the_element().await;
}
