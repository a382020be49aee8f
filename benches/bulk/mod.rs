//! The `BULK` rows of `e2e`: N changed `Doc`s (10,000; quick mode 100)
//! saved by `bulk_save` (each way: the `bulkWrite` command, and the
//! `update` command with many statements of servers before 8.0), by a
//! `save()` loop, by the raw driver's bulk write of the same updates
//! (`client.bulk_write`, unordered, verbose results as bulk_save asks) and
//! by one raw `update` command of them, end to end on the same server; and the
//! client's CPU per document for each (this process's user + system time
//! from `/proc/self/stat`: odm and the driver; the server is another
//! process).

use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use mongodb::options::UpdateOneModel;
use odm::__private::BulkPath;
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
    // Knobs for comparing settings, the same on every batch side: `Doc`s
    // per call (`ODM_BULK_CHUNK`, default all of them), and for the raw
    // sides (bulk_save has no such options) an ordered bulk write
    // (`ODM_BULK_RAW_ORDERED=1`) and `w: majority` (`ODM_BULK_RAW_MAJORITY=1`).
    let chunk = crate::common::env_usize("ODM_BULK_CHUNK", n).max(1);
    let flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
    let (ordered, majority) = (flag("ODM_BULK_RAW_ORDERED"), flag("ODM_BULK_RAW_MAJORITY"));
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
    // The four sides: bulk_save by bulkWrite, bulk_save by the update
    // command, the raw bulk write, the raw update command.
    let mut times: [Vec<(Duration, Duration)>; 4] = Default::default();
    for round in 0..rounds {
        // Each round the sides go in another order.
        for step in 0..4 {
            let side = (round + step) % 4;
            counter += 1;
            let mut docs = load(&model).await;
            let t = match side {
                0 | 1 => {
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
                    let path = [BulkPath::BulkWrite, BulkPath::Commands][side];
                    let t = timed(async {
                        for part in docs.chunks_mut(chunk) {
                            let outcomes = model.bulk_save(part).path(path).await.unwrap();
                            assert!(outcomes.iter().all(Result::is_ok));
                        }
                    })
                    .await;
                    check(&model, &docs).await;
                    t
                }
                2 => {
                    timed(async {
                        for part in docs.chunks(chunk) {
                            let models = part.iter().map(|d| {
                                let version = d.version().unwrap() as i32;
                                UpdateOneModel::builder()
                                .namespace(namespace.clone())
                                .filter(doc! { "_id": Bson::ObjectId(d.id), "__v": version })
                                .update(
                                    doc! { "$set": { "counter": counter }, "$inc": { "__v": 1 } },
                                )
                                .build()
                            });
                            let action = client.bulk_write(models).ordered(ordered);
                            let action = match majority {
                                true => {
                                    action.write_concern(mongodb::options::WriteConcern::majority())
                                }
                                false => action,
                            };
                            let done = action.verbose_results().await.unwrap();
                            assert_eq!(done.summary.matched_count as usize, part.len());
                        }
                    })
                    .await
                }
                _ => {
                    timed(async {
                        for part in docs.chunks(chunk) {
                            let updates: Vec<BsonDocument> = part
                            .iter()
                            .map(|d| {
                                let version = d.version().unwrap() as i32;
                                doc! {
                                    "q": { "_id": Bson::ObjectId(d.id), "__v": version },
                                    "u": { "$set": { "counter": counter }, "$inc": { "__v": 1 } },
                                }
                            })
                            .collect();
                            let mut command = doc! {
                                "update": model.name(),
                                "updates": updates,
                                "ordered": ordered,
                            };
                            if majority {
                                command.insert("writeConcern", doc! { "w": "majority" });
                            }
                            let done = db.run_command(command).await.unwrap();
                            let matched = match done.get("n") {
                                Some(Bson::Int32(v)) => *v as i64,
                                Some(Bson::Int64(v)) => *v,
                                other => panic!("update answered n = {other:?}"),
                            };
                            assert_eq!(matched as usize, part.len());
                        }
                    })
                    .await
                }
            };
            times[side].push(t);
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
    let wall = |side: usize| median(times[side].iter().map(|t| t.0).collect());
    let cpu_of = |side: usize| median(times[side].iter().map(|t| t.1).collect());
    let (bulk_wall, commands_wall, raw_wall, raw_update_wall) =
        (wall(0), wall(1), wall(2), wall(3));
    let (bulk_cpu, commands_cpu, raw_cpu, raw_update_cpu) =
        (cpu_of(0), cpu_of(1), cpu_of(2), cpu_of(3));
    let per = |d: Duration| d.as_nanos() as f64 / n as f64;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "BULK: {n} changed Docs: bulk_save {:.1} ms, bulk_save by update command {:.1} ms, \
         raw bulk_write {:.1} ms, raw update command {:.1} ms, save() loop {:.1} ms \
         (medians of {rounds} rounds; the loop once)",
        ms(bulk_wall),
        ms(commands_wall),
        ms(raw_wall),
        ms(raw_update_wall),
        ms(looped.0),
    );
    println!(
        "BULK: client CPU per Doc: bulk_save {:.1} us, by update command {:.1} us, \
         raw bulk_write {:.1} us, raw update command {:.1} us, save() loop {:.1} us",
        per(bulk_cpu) / 1e3,
        per(commands_cpu) / 1e3,
        per(raw_cpu) / 1e3,
        per(raw_update_cpu) / 1e3,
        per(looped.1) / 1e3,
    );
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!("E2E BULK bulk_save_ns_per_doc {:.0}", per(bulk_wall));
    println!(
        "E2E BULK bulk_save_commands_ns_per_doc {:.0}",
        per(commands_wall)
    );
    println!("E2E BULK raw_bulk_write_ns_per_doc {:.0}", per(raw_wall));
    println!(
        "E2E BULK raw_update_command_ns_per_doc {:.0}",
        per(raw_update_wall)
    );
    println!("E2E BULK save_loop_ns_per_doc {:.0}", per(looped.0));
    println!("E2E BULK ratio_vs_raw {:.2}", ratio(bulk_wall, raw_wall));
    println!(
        "E2E BULK ratio_commands_vs_raw_update {:.2}",
        ratio(commands_wall, raw_update_wall)
    );
    println!("E2E BULK speedup_vs_loop {:.1}", ratio(looped.0, bulk_wall));
    println!(
        "E2E BULK speedup_commands_vs_loop {:.1}",
        ratio(looped.0, commands_wall)
    );
    println!("E2E BULK cpu_ns_per_doc_bulk_save {:.0}", per(bulk_cpu));
    println!(
        "E2E BULK cpu_ns_per_doc_bulk_save_commands {:.0}",
        per(commands_cpu)
    );
    println!("E2E BULK cpu_ns_per_doc_save {:.0}", per(looped.1));
}
