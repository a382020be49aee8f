//! The `BULK` rows of `e2e`: N changed `Doc`s (10,000; quick mode 100)
//! saved by `bulk_save`, by a `save()` loop, and by the raw driver's bulk
//! write of the same updates (`client.bulk_write`, unordered, verbose
//! results as bulk_save asks), end to end on the same server; and the
//! client's CPU per document for each (this process's user + system time
//! from `/proc/self/stat`: odm and the driver; the server is another
//! process).

use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use mongodb::options::UpdateOneModel;
use odm::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bulk_rows", optimistic_concurrency)]
pub struct Row {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    counter: i32,
}

/// This process's CPU time (user + system), at the kernel's tick.
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 here.
    let total = ticks(11) + ticks(12);
    Duration::from_millis(total * 10)
}

/// Wall and CPU time of `f`.
async fn timed<F: std::future::Future<Output = ()>>(f: F) -> (Duration, Duration) {
    let (wall, cpu0) = (Instant::now(), cpu());
    f.await;
    (wall.elapsed(), cpu().saturating_sub(cpu0))
}

async fn load(model: &Model<Row>) -> Vec<Doc<Row>> {
    let mut docs = model.find(doc! {}).await.unwrap();
    docs.sort_by_key(|d| d.id);
    docs
}

async fn all(model: &Model<Row>) -> Vec<BsonDocument> {
    let docs: Vec<BsonDocument> = model
        .collection()
        .find(doc! {})
        .sort(doc! { "_id": 1 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    docs
}

/// Asserts the stored documents are the `Doc`s as saved.
async fn check(model: &Model<Row>, docs: &[Doc<Row>]) {
    let stored = all(model).await;
    assert_eq!(stored.len(), docs.len());
    for (doc, stored) in docs.iter().zip(stored) {
        let mut expected = mongodb::bson::to_document(&**doc).unwrap();
        expected.insert("__v", doc.version().unwrap() as i32);
        assert_eq!(stored, expected, "stored == memory");
        assert_eq!(doc.changes(), None, "committed");
    }
}

pub async fn run(db: &mongodb::Database, quick: bool) {
    let n = crate::common::env_usize("ODM_BULK_DOCS", if quick { 100 } else { 10_000 });
    let rounds = crate::common::env_usize("ODM_BULK_ROUNDS", if quick { 1 } else { 3 });
    let model = Row::model(db);
    model.collection().delete_many(doc! {}).await.unwrap();
    let values = (0..n).map(|i| Row {
        id: ObjectId::new(),
        name: format!("row {i}"),
        counter: 0,
    });
    let created = model.insert_many(values).await.unwrap();
    assert!(created.iter().all(Result::is_ok));
    let client = model.collection().client().clone();
    let namespace = model.collection().namespace();

    let mut counter = 0;
    let (mut bulk, mut raw) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        // bulk_save and the raw bulk write alternate which goes first.
        for side in 0..2 {
            counter += 1;
            let mut docs = load(&model).await;
            if (round + side) % 2 == 0 {
                for doc in docs.iter_mut() {
                    doc.counter = counter;
                }
                let (expected_filter, expected_update) = docs[0].changes().unwrap();
                let version = docs[0].version().unwrap() as i32;
                assert_eq!(expected_filter, doc! { "_id": docs[0].id, "__v": version });
                assert_eq!(
                    expected_update,
                    doc! { "$set": { "counter": counter }, "$inc": { "__v": 1 } }
                );
                let t = timed(async {
                    let outcomes = model.bulk_save(&mut docs).await.unwrap();
                    assert!(outcomes.iter().all(Result::is_ok));
                })
                .await;
                check(&model, &docs).await;
                bulk.push(t);
            } else {
                let t = timed(async {
                    let models = docs.iter().map(|d| {
                        let version = d.version().unwrap() as i32;
                        UpdateOneModel::builder()
                            .namespace(namespace.clone())
                            .filter(doc! { "_id": Bson::ObjectId(d.id), "__v": version })
                            .update(doc! { "$set": { "counter": counter }, "$inc": { "__v": 1 } })
                            .build()
                    });
                    let done = client
                        .bulk_write(models)
                        .ordered(false)
                        .verbose_results()
                        .await
                        .unwrap();
                    assert_eq!(done.summary.matched_count as usize, n);
                })
                .await;
                raw.push(t);
            }
        }
    }
    // The save() loop, once (10,000 round trips).
    counter += 1;
    let mut docs = load(&model).await;
    let looped = timed(async {
        for doc in docs.iter_mut() {
            doc.counter = counter;
            doc.save().await.unwrap();
        }
    })
    .await;
    check(&model, &docs).await;

    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let bulk_wall = median(bulk.iter().map(|t| t.0).collect());
    let raw_wall = median(raw.iter().map(|t| t.0).collect());
    let bulk_cpu = median(bulk.iter().map(|t| t.1).collect());
    let raw_cpu = median(raw.iter().map(|t| t.1).collect());
    let per = |d: Duration| d.as_nanos() as f64 / n as f64;
    println!(
        "BULK: {n} changed Docs: bulk_save {:.1} ms, raw bulk_write {:.1} ms, save() loop {:.1} ms \
         (medians of {rounds} rounds; the loop once)",
        bulk_wall.as_secs_f64() * 1e3,
        raw_wall.as_secs_f64() * 1e3,
        looped.0.as_secs_f64() * 1e3,
    );
    println!(
        "BULK: client CPU per Doc: bulk_save {:.1} us, raw bulk_write {:.1} us, save() loop {:.1} us",
        per(bulk_cpu) / 1e3,
        per(raw_cpu) / 1e3,
        per(looped.1) / 1e3,
    );
    println!("E2E BULK bulk_save_ns_per_doc {:.0}", per(bulk_wall));
    println!("E2E BULK raw_bulk_write_ns_per_doc {:.0}", per(raw_wall));
    println!("E2E BULK save_loop_ns_per_doc {:.0}", per(looped.0));
    println!(
        "E2E BULK ratio_vs_raw {:.2}",
        bulk_wall.as_secs_f64() / raw_wall.as_secs_f64()
    );
    println!(
        "E2E BULK speedup_vs_loop {:.1}",
        looped.0.as_secs_f64() / bulk_wall.as_secs_f64()
    );
    println!("E2E BULK cpu_ns_per_doc_bulk_save {:.0}", per(bulk_cpu));
    println!("E2E BULK cpu_ns_per_doc_save {:.0}", per(looped.1));
}
