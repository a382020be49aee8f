//! `Model::update_with_retry` against concurrent writers, and the lost
//! updates it prevents.

use crate::common;

use std::future::IntoFuture;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::monitor::Sent;
use common::Monitored;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use tokio::sync::Barrier;

/// Default (array) versioning: a scalar `$set` alone would not be checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "counters")]
struct Counter {
    #[serde(rename = "_id")]
    id: String,
    value: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "oc_counters", optimistic_concurrency)]
struct OcCounter {
    #[serde(rename = "_id")]
    id: String,
    value: i64,
}

const WRITERS: i64 = 20;

/// The `command` commands (`find`, `update`) sent to `collection`, and
/// those of them that matched nothing (a version conflict).
fn sent_to(sent: &[Sent], command: &str, collection: &str) -> (usize, usize) {
    let sent: Vec<_> = sent
        .iter()
        .filter(|s| s.name == command && s.command.get_str(command).ok() == Some(collection))
        .collect();
    let missed = sent.iter().filter(|s| s.matched() == Some(0)).count();
    (sent.len(), missed)
}

/// 20 concurrent increments of one counter, with and without
/// `optimistic_concurrency`: none lost, version 20. The command monitor
/// shows the retries: each try is one load and one update, and every
/// update past the first 20 follows a conflict (an update that matched
/// nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_increments_are_not_lost() {
    let m = Monitored::new("retries").await;
    let counters = Counter::model(m.db());
    let oc = OcCounter::model(m.db());
    let mut conflicts = 0;
    for round in 0..3 {
        let id = format!("c{round}");
        counters
            .create(Counter {
                id: id.clone(),
                value: 0,
            })
            .await
            .unwrap();
        oc.create(OcCounter {
            id: id.clone(),
            value: 0,
        })
        .await
        .unwrap();
        let applied = Arc::new(AtomicUsize::new(0));
        let start = Arc::new(Barrier::new(WRITERS as usize));
        m.monitor.clear();
        let mut tasks = Vec::new();
        for _ in 0..WRITERS {
            let (counters, oc, id, applied, start) = (
                counters.clone(),
                oc.clone(),
                id.clone(),
                applied.clone(),
                start.clone(),
            );
            tasks.push(tokio::spawn(async move {
                start.wait().await;
                let a = counters
                    .update_with_retry(id.clone(), 100, |c: &mut Counter| {
                        applied.fetch_add(1, Ordering::SeqCst);
                        c.value += 1;
                        Ok(())
                    })
                    .await
                    .unwrap();
                let b = oc
                    .update_with_retry(id, 100, |c: &mut OcCounter| {
                        c.value += 1;
                        Ok(())
                    })
                    .await
                    .unwrap();
                (a.version(), b.version())
            }));
        }
        let mut versions = Vec::new();
        for task in tasks {
            versions.push(task.await.unwrap());
        }
        let sent = m.monitor.all();
        let stored = counters.find_by_id(id.clone()).await.unwrap().unwrap();
        assert_eq!(stored.value, WRITERS);
        assert_eq!(stored.version(), Some(WRITERS));
        let stored = oc.find_by_id(id.clone()).await.unwrap().unwrap();
        assert_eq!(stored.value, WRITERS);
        assert_eq!(stored.version(), Some(WRITERS));
        // Each call returned the version its own save produced: 1..=20 once each.
        let mut own: Vec<i64> = versions.iter().map(|v| v.0.unwrap()).collect();
        own.sort();
        assert_eq!(own, (1..=WRITERS).collect::<Vec<_>>());
        let tries = applied.load(Ordering::SeqCst);
        println!("round {round}: {tries} applications for {WRITERS} increments");
        for collection in ["counters", "oc_counters"] {
            let (loads, _) = sent_to(&sent, "find", collection);
            let (updates, missed) = sent_to(&sent, "update", collection);
            assert_eq!(loads, updates, "{collection}: one load per try");
            assert_eq!(
                updates,
                WRITERS as usize + missed,
                "{collection}: one more per conflict"
            );
            conflicts += missed;
        }
        assert_eq!(tries, sent_to(&sent, "update", "counters").0);
    }
    assert!(conflicts > 0, "the writers raced: some update was retried");
    m.finish().await;
}

/// The same 20 concurrent increments as a raw read-modify-write lose
/// updates: the test above could tell.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn raw_read_modify_write_loses_updates() {
    let t = TestDb::new().await;
    let raw = t.db.collection::<mongodb::bson::Document>("raw_counters");
    let mut finals = Vec::new();
    for round in 0..5 {
        raw.insert_one(doc! { "_id": round, "value": 0_i64 })
            .await
            .unwrap();
        let start = Arc::new(Barrier::new(WRITERS as usize));
        let tasks: Vec<_> = (0..WRITERS)
            .map(|_| {
                let (raw, start) = (raw.clone(), start.clone());
                tokio::spawn(async move {
                    start.wait().await;
                    let found = raw.find_one(doc! { "_id": round }).await.unwrap().unwrap();
                    let value = found.get_i64("value").unwrap();
                    raw.update_one(
                        doc! { "_id": round },
                        doc! { "$set": { "value": value + 1 } },
                    )
                    .await
                    .unwrap();
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        let stored = raw.find_one(doc! { "_id": round }).await.unwrap().unwrap();
        finals.push(stored.get_i64("value").unwrap());
        if finals.last() < Some(&WRITERS) {
            break;
        }
    }
    println!("raw read-modify-write final values: {finals:?}");
    assert!(
        finals.iter().any(|&v| v < WRITERS),
        "no update was lost in 5 rounds: {finals:?}"
    );
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gives_up_with_the_last_version_error() {
    let m = Monitored::new("gives_up").await;
    let counters = Counter::model(m.db());
    counters
        .create(Counter {
            id: "c".into(),
            value: 0,
        })
        .await
        .unwrap();
    let mut tries = 0;
    let raw = counters.collection().clone();
    m.monitor.clear();
    // Every try, another writer bumps the version between the load and the save.
    let result = counters
        .update_with_retry("c", 3, |c: &mut Counter| {
            tries += 1;
            tokio::task::block_in_place(|| {
                let bump = raw.update_one(doc! { "_id": "c" }, doc! { "$inc": { "__v": 1 } });
                tokio::runtime::Handle::current()
                    .block_on(bump.into_future())
                    .unwrap();
            });
            c.value += 1;
            Ok(())
        })
        .await;
    match result {
        Err(Error::Version(e)) => {
            assert_eq!(
                e.to_string(),
                "No matching document found for id \"c\" version 2 modifiedPaths \"value\""
            );
            // The other writer bumped only the version, which is no field.
            assert_eq!(e.stored_changes(), Some(&[][..]));
        }
        other => panic!("expected a version error, got {other:?}"),
    }
    assert_eq!(tries, 3);
    // Three loads and three saves, each missing (and the three bumps), and
    // after the last refusal one read of what the store changed: the tries
    // before it reload anyway.
    assert_eq!(sent_to(&m.monitor.all(), "find", "counters"), (4, 0));
    assert_eq!(sent_to(&m.monitor.all(), "update", "counters"), (6, 3));
    let stored = counters.find_by_id("c").await.unwrap().unwrap();
    assert_eq!((stored.value, stored.version()), (0, Some(3)));
    m.finish().await;
}

#[tokio::test]
async fn stops_on_other_errors_and_skips_no_op_writes() {
    let m = Monitored::new("stops").await;
    let counters = Counter::model(m.db());
    match counters
        .update_with_retry("missing", 3, |_: &mut Counter| Ok(()))
        .await
    {
        Err(Error::NotFound(e)) => assert_eq!(e.filter, doc! { "_id": "missing" }),
        other => panic!("expected not found, got {other:?}"),
    }
    counters
        .create(Counter {
            id: "c".into(),
            value: 0,
        })
        .await
        .unwrap();
    let mut calls = 0;
    m.monitor.clear();
    let err = counters
        .update_with_retry("c", 3, |_: &mut Counter| {
            calls += 1;
            Err(Error::application("no"))
        })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Application(_)), "{err:?}");
    assert_eq!(err.to_string(), "no");
    assert_eq!(calls, 1);
    let same = counters
        .update_with_retry("c", 3, |_: &mut Counter| Ok(()))
        .await
        .unwrap();
    assert_eq!(same.version(), Some(0), "nothing changed, nothing written");
    assert_eq!(
        sent_to(&m.monitor.all(), "find", "counters"),
        (2, 0),
        "one load each"
    );
    assert!(m.monitor.writes().is_empty(), "{:?}", m.monitor.writes());
    m.finish().await;
}
