//! The request of each atomic write, built without a server.

use mongodb::bson::doc;
use serde::{Deserialize, Serialize};

use super::*;
use crate::schema::meta::{Meta, Timestamps, Versioning};

/// A versioned model with `#[odm(timestamps)]`.
#[derive(Serialize, Deserialize)]
struct Task {
    _id: i32,
}

static TASK: Meta = Meta {
    name: "Task",
    collection: "tasks",
    versioning: Versioning::DEFAULT,
    fields: &[("_id", "_id")],
    indexes: &[],
    timestamps: Some(Timestamps {
        created_at: "createdAt",
        updated_at: "updatedAt",
        server_clock: false,
    }),
    shard_key: &[],
    hooks: false,
    kinds: None,
    schema: None,
};

impl Schema for Task {
    fn __odm_meta() -> &'static Meta {
        &TASK
    }
}

/// A model with `versioning = false` and no timestamps.
#[derive(Serialize, Deserialize)]
struct Plain {
    _id: i32,
}

static PLAIN: Meta = Meta {
    name: "Plain",
    collection: "plain",
    versioning: Versioning {
        key: None,
        ..Versioning::DEFAULT
    },
    fields: &[("_id", "_id")],
    indexes: &[],
    timestamps: None,
    shard_key: &[],
    hooks: false,
    kinds: None,
    schema: None,
};

impl Schema for Plain {
    fn __odm_meta() -> &'static Meta {
        &PLAIN
    }
}

fn now() -> DateTime {
    DateTime::from_millis(1_000)
}

#[test]
fn a_claim_bumps_the_version_and_stamps_updated_at() {
    let request = claim::<Task>(
        doc! { "state": "pending" },
        doc! { "$set": { "state": "running" } },
        Some(doc! { "_id": 1 }),
        None,
        now(),
    );
    assert_eq!(request.filter, doc! { "state": "pending" });
    assert_eq!(request.given, request.filter);
    assert_eq!(
        request.update,
        Modification::Operators(doc! {
            "$set": { "state": "running", "updatedAt": now() },
            "$inc": { "__v": 1 },
        })
    );
    assert_eq!(
        (request.upsert, request.sort.clone(), request.fence),
        (false, Some(doc! { "_id": 1 }), None)
    );
    // Nothing matched is the answer: no resend, no read.
    let mut resent = Resent::default();
    assert!(!request.again(Answer::Empty, &mut resent, false));
    assert!(!request.again(Answer::DuplicateKey, &mut resent, false));
    assert_eq!(request.fence_read(Answer::Empty), None);
}

#[test]
fn a_claim_that_writes_the_version_key_keeps_it() {
    let request = claim::<Task>(
        doc! {},
        doc! { "$set": { "__v": 7, "updatedAt": "given" } },
        None,
        None,
        now(),
    );
    assert_eq!(
        request.update,
        Modification::Operators(doc! { "$set": { "__v": 7, "updatedAt": "given" } })
    );
    let request = claim::<Plain>(doc! {}, doc! { "$inc": { "n": 1 } }, None, None, now());
    assert_eq!(
        request.update,
        Modification::Operators(doc! { "$inc": { "n": 1 } })
    );
}

#[test]
fn a_fenced_claim_stores_the_token_and_reads_the_fence_when_nothing_matched() {
    let request = claim::<Plain>(
        doc! { "_id": 1 },
        doc! { "$set": { "owner": "w" } },
        None,
        Some(5),
        now(),
    );
    assert_eq!(
        request.filter,
        doc! { "_id": 1, "__fence": { "$not": { "$gt": 5_i64 } } }
    );
    assert_eq!(request.given, doc! { "_id": 1 });
    assert_eq!(
        request.update,
        Modification::Operators(doc! { "$set": { "owner": "w", "__fence": 5_i64 } })
    );
    assert_eq!(request.fence_read(Answer::Empty), Some(5));
    assert_eq!(request.fence_read(Answer::DuplicateKey), None);
}

#[test]
fn a_versioned_upsert_is_the_pipeline_with_the_marker() {
    let request = upsert::<Task>(
        doc! { "email": "a" },
        doc! { "seen": 1 },
        doc! { "visits": 0 },
        None,
        now(),
    );
    assert_eq!(
        request.filter,
        doc! { "email": "a", upsert_pipeline::MARKER: null }
    );
    assert_eq!(request.given, doc! { "email": "a" });
    let expected = upsert_pipeline::pipeline(
        &doc! { "seen": 1, "updatedAt": now() },
        &doc! { "visits": 0, "createdAt": now() },
        Some("__v"),
        None,
    );
    assert_eq!(request.update, Modification::Pipeline(expected));
    assert!(request.upsert && request.sort.is_none());
}

#[test]
fn an_unversioned_upsert_or_one_writing_the_key_is_the_operator_form() {
    let request = upsert::<Plain>(
        doc! { "email": "a" },
        doc! { "seen": 1 },
        doc! {},
        None,
        now(),
    );
    assert_eq!(request.filter, doc! { "email": "a" });
    assert_eq!(
        request.update,
        Modification::Operators(doc! { "$set": { "seen": 1 } })
    );
    let request = upsert::<Task>(doc! {}, doc! {}, doc! { "__v": 3 }, None, now());
    assert_eq!(
        request.update,
        Modification::Operators(doc! {
            "$setOnInsert": { "__v": 3, "createdAt": now() },
            "$set": { "updatedAt": now() },
        })
    );
}

#[test]
fn an_upsert_is_sent_again_after_empty_answers_and_one_duplicate_key() {
    let request = upsert::<Plain>(doc! { "k": 1 }, doc! {}, doc! {}, None, now());
    let mut resent = Resent::default();
    for _ in 0..EMPTY_ANSWER_RETRIES {
        assert!(request.again(Answer::Empty, &mut resent, false));
    }
    assert!(!request.again(Answer::Empty, &mut resent, false));
    // A duplicate key: never inside a session, once outside one (the
    // empty answers counted apart).
    assert!(!request.again(Answer::DuplicateKey, &mut resent, true));
    assert!(request.again(Answer::DuplicateKey, &mut resent, false));
    assert!(!request.again(Answer::DuplicateKey, &mut resent, false));
    assert_eq!(request.fence_read(Answer::DuplicateKey), None);
}

#[test]
fn a_fenced_upsert_carries_the_fence_and_reads_it_on_a_duplicate_key() {
    let request = upsert::<Task>(doc! { "_id": 1 }, doc! { "a": 1 }, doc! {}, Some(4), now());
    assert_eq!(
        request.filter,
        doc! {
            "_id": 1,
            "__fence": { "$not": { "$gt": 4_i64 } },
            upsert_pipeline::MARKER: null,
        }
    );
    let expected = upsert_pipeline::pipeline(
        &doc! { "a": 1, "updatedAt": now(), "__fence": 4_i64 },
        &doc! { "createdAt": now() },
        Some("__v"),
        None,
    );
    assert_eq!(request.update, Modification::Pipeline(expected));
    assert_eq!(request.fence_read(Answer::DuplicateKey), Some(4));
    assert_eq!(request.fence_read(Answer::Empty), None);
}
