use std::time::Duration;

use mongodb::bson::oid::ObjectId;
use mongodb::bson::{doc, Bson, DateTime};

use super::*;

fn live() -> mongodb::bson::Document {
    doc! { "$gt": [
        { "$toLong": { "$ifNull": ["$expiresAt", DateTime::from_millis(0)] } },
        { "$toLong": "$$NOW" },
    ] }
}

#[test]
fn acquire_is_one_pipeline_stage_judged_by_now() {
    let owner = ObjectId::new();
    let pipeline = acquire(owner, Duration::from_secs(10));
    let free = doc! { "$not": [live()] };
    assert_eq!(
        pipeline,
        vec![doc! { "$set": {
            "owner": { "$cond": [free.clone(), owner, "$owner"] },
            "token": { "$cond": [
                free.clone(),
                { "$add": [{ "$ifNull": ["$token", 0_i64] }, 1_i64] },
                "$token",
            ] },
            "expiresAt": { "$cond": [free, { "$add": ["$$NOW", 10_000_i64] }, "$expiresAt"] },
        } }]
    );
}

#[test]
fn renew_and_release_match_only_a_live_grant_of_this_owner() {
    let owner = ObjectId::new();
    assert_eq!(
        held("k", owner),
        doc! { "_id": "k", "owner": owner, "$expr": live() }
    );
    assert_eq!(
        renew(Duration::from_millis(1500)),
        vec![doc! { "$set": { "expiresAt": { "$add": ["$$NOW", 1500_i64] } } }]
    );
    assert_eq!(
        release(),
        vec![doc! { "$set": { "owner": Bson::Null, "expiresAt": "$$NOW" } }]
    );
}

#[test]
fn ttl_is_at_least_one_millisecond() {
    assert_eq!(ttl_millis(Duration::ZERO), 1);
    assert_eq!(ttl_millis(Duration::from_micros(999)), 1);
    assert_eq!(ttl_millis(Duration::MAX), i64::MAX);
}

#[test]
fn granted_only_to_its_owner() {
    let me = ObjectId::new();
    let other = ObjectId::new();
    assert_eq!(granted(&doc! { "owner": me, "token": 7_i64 }, me), Some(7));
    assert_eq!(granted(&doc! { "owner": me, "token": 7 }, me), Some(7));
    assert_eq!(granted(&doc! { "owner": other, "token": 7_i64 }, me), None);
    assert_eq!(
        granted(&doc! { "owner": Bson::Null, "token": 7_i64 }, me),
        None
    );
    assert_eq!(granted(&doc! { "owner": me }, me), None);
}

#[test]
fn backoff_grows_to_a_cap_and_is_never_zero() {
    for attempt in 0..40 {
        for random in [0, 1, 17, u64::MAX] {
            let pause = backoff(attempt, random);
            assert!(pause >= Duration::from_millis(2), "{attempt} {random}");
            assert!(pause <= Duration::from_millis(250), "{attempt} {random}");
        }
    }
    assert!(backoff(0, u64::MAX) <= Duration::from_millis(5));
    assert!(backoff(10, 0) >= Duration::from_millis(125));
}
