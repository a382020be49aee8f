//! `model.migrate_all()` (issue 31), against the server: every older
//! document upgraded in batches over `bulk_save`, with progress (a
//! `tracing` event per batch and the callback) and a report (upgraded,
//! current, failed with ids); resumable (a batch cut off by each fault of
//! the fault matrix, then a second run: nothing upgraded twice, nothing
//! lost); safe beside live writers (8 tasks editing the documents while it
//! runs: every edit kept, every document at the model's version).
//!
//! The live-writer test migrates `ODM_MIGRATE_DOCS` documents (default
//! 2,000; the figure is 100,000).

mod common;
mod schema_support;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use common::{Fault, Monitored};
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use schema_support::{stored_at, User};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Inserts `n` users at the versions `version(i)` gives, in batches.
async fn insert(users: &Model<User>, n: usize, version: impl Fn(usize) -> u32) -> Vec<ObjectId> {
    let mut ids = Vec::with_capacity(n);
    let mut batch = Vec::new();
    for i in 0..n {
        let id = ObjectId::new();
        ids.push(id);
        batch.push(stored_at(version(i), id, i as i64));
        if batch.len() == 1_000 || i + 1 == n {
            users
                .collection()
                .insert_many(std::mem::take(&mut batch))
                .await
                .unwrap();
        }
    }
    ids
}

/// Every stored user: `(schema version, version, visits)` by id.
async fn all(users: &Model<User>) -> HashMap<ObjectId, (Option<i32>, i32, i64)> {
    use futures_util::TryStreamExt;
    let docs: Vec<BsonDocument> = users
        .collection()
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    docs.into_iter()
        .map(|d| {
            let visits = match d.get("visits") {
                Some(Bson::Int32(n)) => i64::from(*n),
                Some(Bson::Int64(n)) => *n,
                None => 0,
                other => panic!("visits {other:?}"),
            };
            let schema = d.get_i32("__sv").ok();
            (
                d.get_object_id("_id").unwrap(),
                (schema, d.get_i32("__v").unwrap(), visits),
            )
        })
        .collect()
}

/// The `odm::migrate` events, as their fields: one subscriber for the
/// whole binary (a scoped one can miss a callsite another test's thread
/// registered first), its events told apart by their collection.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<BTreeMap<String, String>>>>);

fn captured() -> &'static Capture {
    static CAPTURE: std::sync::OnceLock<Capture> = std::sync::OnceLock::new();
    CAPTURE.get_or_init(|| {
        let capture = Capture::default();
        tracing::subscriber::set_global_default(capture.clone()).expect("the only subscriber");
        capture
    })
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
}

impl Subscriber for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == "odm::migrate"
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        self.0.lock().unwrap().push(fields);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[tokio::test]
async fn every_older_document_is_upgraded_in_batches_with_progress_and_a_report() {
    let m = Monitored::new("migrate-all").await;
    // A collection of its own: its `tracing` events are told apart.
    let users = Model::<User>::with_collection(m.db(), "traced");
    // 20 documents at versions 0, 1, 2 in turn; one a step refuses; one a
    // newer instance wrote.
    let ids = insert(&users, 20, |i| (i % 3) as u32).await;
    let bad = ObjectId::new();
    let newer = ObjectId::new();
    users
        .collection()
        .insert_many([
            doc! { "_id": bad, "full_name": "No Mail", "__v": 0 },
            doc! { "_id": newer, "email": "n@x.io", "__v": 0, "__sv": 3 },
        ])
        .await
        .unwrap();
    let before = all(&users).await;
    m.monitor.clear();
    let progress = Arc::new(Mutex::new(Vec::new()));
    let seen = progress.clone();
    let capture = captured();
    let report = users
        .migrate_all()
        .batch_size(5)
        .on_progress(move |p: &MigrationProgress| seen.lock().unwrap().push(p.clone()))
        .await
        .unwrap();
    let older = ids.iter().enumerate().filter(|(i, _)| i % 3 != 2).count() as u64;
    assert_eq!(report.upgraded(), older);
    assert_eq!(report.current(), 6);
    assert_eq!(report.newer(), 1);
    let failed: Vec<(&Bson, u32)> = report
        .failed()
        .iter()
        .map(|(id, e)| match e {
            Error::Migration(m) => (id, m.from()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(failed, [(&Bson::ObjectId(bad), 0)]);
    // 14 older documents and the refused one, 5 at a time.
    assert_eq!(report.batches(), 3);
    assert_eq!(m.monitor.named("bulkWrite").len(), 3);
    let progress = progress.lock().unwrap().clone();
    assert_eq!(progress.len(), 3);
    let last = progress.last().unwrap();
    assert_eq!(
        (last.upgraded, last.failed, last.older_at_start),
        (older, 1, older + 1)
    );
    assert!(progress.windows(2).all(|w| w[0].upgraded <= w[1].upgraded));
    let events: Vec<_> = capture
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.get("collection").map(String::as_str) == Some("traced"))
        .cloned()
        .collect();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[2]["upgraded"], older.to_string());
    // Every document at version 2, upgraded once; the others untouched.
    let after = all(&users).await;
    for id in &ids {
        let (schema, version, visits) = after[id];
        assert_eq!(schema, Some(2));
        assert_eq!(version, before[id].1 + i32::from(before[id].0 != Some(2)));
        assert_eq!(visits, before[id].2);
    }
    assert_eq!(after[&bad], before[&bad]);
    assert_eq!(after[&newer], before[&newer]);
    // Run again: nothing left to upgrade, nothing written.
    m.monitor.clear();
    let again = users.migrate_all().await.unwrap();
    assert_eq!((again.upgraded(), again.current()), (0, 20));
    assert_eq!(again.failed().len(), 1);
    assert!(m.monitor.writes().is_empty());
    m.finish().await;
}

/// The fault matrix on the second batch's `bulkWrite`: the run stops (or
/// reports the batch's documents), and a second run upgrades the rest:
/// every document ends at version 2 having been upgraded exactly once
/// (its version key bumped once), none lost.
#[tokio::test]
async fn a_batch_cut_off_by_a_fault_then_run_again_upgrades_each_document_once() {
    for fault in Fault::ALL {
        let Some(m) = Monitored::with_fail_points(&format!("migrate-fault-{fault:?}")).await else {
            return;
        };
        let users = User::model(m.db());
        let ids = insert(&users, 12, |i| (i % 2) as u32).await;
        let point = m.fail_skipping(&["bulkWrite"], 1, 1, fault.data()).await;
        let first = users.migrate_all().batch_size(4).await;
        point.off().await;
        match &first {
            Err(e) => common::faults::assert_reported(e, fault),
            Ok(report) => assert!(!report.failed().is_empty(), "{fault:?}: {report:?}"),
        }
        let second = users.migrate_all().batch_size(4).await.unwrap();
        assert!(second.failed().is_empty(), "{fault:?}: {second:?}");
        let after = all(&users).await;
        for id in &ids {
            let (schema, version, _) = after[id];
            assert_eq!((schema, version), (Some(2), 1), "{fault:?}: {id}");
        }
        let first_upgraded = first.as_ref().map_or(4, |r| r.upgraded());
        let upgraded = first_upgraded + second.upgraded();
        // What the fault applied (a write concern error) is current for the
        // second run.
        let landed_unseen = if fault.applies() { 4 } else { 0 };
        assert_eq!(
            upgraded + landed_unseen,
            12,
            "{fault:?}: {first:?} / {second:?}"
        );
        m.finish().await;
    }
}

/// Eight tasks keep adding to `visits` of random documents
/// (`update_with_retry`: load, add, save checked; on `Error::Version` load
/// and add again) while `migrate_all`
/// runs over documents of every version: every document ends at version
/// 2, and every edit that saved is in the stored value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_writers_lose_nothing_while_migrate_all_runs() {
    let docs: usize = std::env::var("ODM_MIGRATE_DOCS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000);
    let m = Monitored::new("migrate-live").await;
    let users = User::model(m.db());
    let ids = Arc::new(insert(&users, docs, |i| (i % 3) as u32).await);
    let before = all(&users).await;
    let done = Arc::new(AtomicBool::new(false));
    let edits: Arc<Vec<AtomicU64>> = Arc::new((0..docs).map(|_| AtomicU64::new(0)).collect());
    let mut writers = Vec::new();
    for w in 0..8u64 {
        let (users, ids, done, edits) = (users.clone(), ids.clone(), done.clone(), edits.clone());
        writers.push(tokio::spawn(async move {
            let mut rng = odm_testing::random::Rng::new(0x5eed + w);
            let mut saved = 0u64;
            // At least 50 edits each, then until the migration is done.
            // Each edit is checked (`update_with_retry`: load, add, save
            // with a version check; on `Error::Version` load and add
            // again), so two writers adding to one document both count.
            while saved < 50 || !done.load(Ordering::SeqCst) {
                let i = rng.below(ids.len());
                users
                    .update_with_retry(ids[i], 100, |user: &mut User| {
                        user.visits += 1;
                        Ok(())
                    })
                    .await
                    .unwrap_or_else(|e| panic!("writer {w}: {e}"));
                edits[i].fetch_add(1, Ordering::SeqCst);
                saved += 1;
            }
            saved
        }));
    }
    let started = std::time::Instant::now();
    let report = users
        .migrate_all()
        .batch_size(500)
        .on_progress(|p: &MigrationProgress| {
            println!(
                "batch {}: {} upgraded at {:?}",
                p.batch, p.upgraded, p.elapsed
            )
        })
        .await
        .unwrap();
    let took = started.elapsed();
    done.store(true, Ordering::SeqCst);
    let mut saved = 0;
    for writer in writers {
        saved += writer.await.unwrap();
    }
    println!(
        "migrate_all: {docs} documents in {took:?} ({:.0}/s) beside {saved} edits: {} upgraded, {} current",
        report.rate(),
        report.upgraded(),
        report.current(),
    );
    assert!(report.failed().is_empty(), "{:?}", report.failed());
    // Each older document upgraded by the run or by a writer's save.
    let older = (0..docs).filter(|i| i % 3 != 2).count() as u64;
    assert!(report.upgraded() <= older);
    let after = all(&users).await;
    let mut counted = 0;
    for (i, id) in ids.iter().enumerate() {
        let (schema, _, visits) = after[id];
        assert_eq!(schema, Some(2), "document {i}");
        let edits = edits[i].load(Ordering::SeqCst);
        assert_eq!(
            visits,
            before[id].2 + edits as i64,
            "document {i}: an edit was lost"
        );
        counted += edits;
    }
    assert_eq!(counted, saved);
    m.finish().await;
}
