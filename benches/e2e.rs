//! End-to-end: `doc.save()` against a hand-written `update_one` sending the
//! same filter and update, on the same server, alternating in one run.
//!
//! `cargo bench --bench e2e [-- SHAPE...]` (default: S M L) runs against the
//! local SecantusDB server (or `MONGODB_URI`). Each shape gets two documents
//! of its own, one per side; every op sets `counter` and bumps `__v` under
//! `optimistic_concurrency`. `ODM_E2E_ROUNDS` (default 10) rounds of
//! `ODM_E2E_OPS` (default 200) ops per side, the sides alternating op by
//! op (each first every other time); L, whose every write costs the server
//! ~40 ms, runs a tenth of the ops. Prints per-op times, `E2E SHAPE ratio R`
//! per shape (total save() time over total update_one time) and
//! `E2E ratio R`, the worst shape. About 40 s in all on the local server.
//! `ODM_BENCH_QUICK=1`: one round of 4 ops per side (1 for L), with every
//! assertion, in a few seconds (what CI runs); the ratios then mean little.

mod bulk;
mod common;
mod cpu;

use std::time::{Duration, Instant};

use common::{article, env_usize, small, stored, Article, Rng, Small};
use odm::bson::raw::RawDocumentBuf;
use odm::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;

/// A model type with a `counter` field.
trait Counted: Document + PartialEq {
    fn set_counter(&mut self, n: i32);
}

impl Counted for Small {
    fn set_counter(&mut self, n: i32) {
        self.counter = n;
    }
}

impl Counted for Article {
    fn set_counter(&mut self, n: i32) {
        self.counter = n;
    }
}

/// The write both sides send, built by hand: `{_id, __v}` and
/// `{$set: {counter}, $inc: {__v: 1}}`. The version is an Int32 while it
/// fits, as Mongoose stores it and as save() sends it.
fn hand_written(id: &Bson, version: i64, n: i32) -> (BsonDocument, BsonDocument) {
    let filter = match i32::try_from(version) {
        Ok(v) => doc! { "_id": id.clone(), "__v": v },
        Err(_) => doc! { "_id": id.clone(), "__v": version },
    };
    let update = doc! { "$set": { "counter": n }, "$inc": { "__v": 1 } };
    (filter, update)
}

/// The hand-written side: the same write, built by hand.
struct Hand {
    collection: mongodb::Collection<BsonDocument>,
    id: Bson,
    version: i64,
}

impl Hand {
    async fn write(&mut self, n: i32) {
        let (filter, update) = hand_written(&self.id, self.version, n);
        let result = self.collection.update_one(filter, update).await.unwrap();
        assert_eq!(result.matched_count, 1, "the hand-written update matched");
        self.version += 1;
    }
}

/// Total time of each side over all rounds.
struct Outcome {
    save: Duration,
    hand: Duration,
    ops: usize,
    round_ratios: Vec<f64>,
}

async fn run_shape<T: Counted>(
    model: &Model<T>,
    raw_save: &RawDocumentBuf,
    raw_hand: &RawDocumentBuf,
    rounds: usize,
    ops: usize,
) -> Outcome {
    model.collection().delete_many(doc! {}).await.unwrap();
    let raw_coll = model.collection().clone_with_type::<RawDocumentBuf>();
    raw_coll
        .insert_many([raw_save.clone(), raw_hand.clone()])
        .await
        .unwrap();
    let save_id = Bson::try_from(raw_save.get("_id").unwrap().unwrap()).unwrap();
    let hand_id = Bson::try_from(raw_hand.get("_id").unwrap().unwrap()).unwrap();
    let mut doc = model.find_by_id(save_id.clone()).await.unwrap().unwrap();
    let mut hand = Hand {
        collection: model.collection().clone(),
        id: hand_id,
        version: 0,
    };

    // Both sides send the same filter and update (up to the `_id`), types
    // included: save() sends exactly what the hand-written side sends.
    doc.set_counter(1);
    let changes = doc.changes().expect("a change");
    assert_eq!(changes, hand_written(&save_id, 0, 1));

    let mut n = 0i32;
    // Warm-up round, not counted.
    for _ in 0..ops / 4 {
        n += 1;
        doc.set_counter(n);
        doc.save().await.unwrap();
        hand.write(n).await;
    }

    let mut out = Outcome {
        save: Duration::ZERO,
        hand: Duration::ZERO,
        ops: rounds * ops,
        round_ratios: Vec::new(),
    };
    for _ in 0..rounds {
        let mut save_time = Duration::ZERO;
        let mut hand_time = Duration::ZERO;
        // Op by op, each side first every other time, so load bursts from
        // other processes fall on both sides alike.
        for i in 0..ops {
            for side in 0..2 {
                n += 1;
                let start = Instant::now();
                if (i + side) % 2 == 0 {
                    doc.set_counter(n);
                    doc.save().await.unwrap();
                    save_time += start.elapsed();
                } else {
                    hand.write(n).await;
                    hand_time += start.elapsed();
                }
            }
        }
        out.save += save_time;
        out.hand += hand_time;
        out.round_ratios
            .push(save_time.as_secs_f64() / hand_time.as_secs_f64());
    }
    assert_eq!(
        doc.version(),
        Some(hand.version),
        "both sides wrote as often"
    );
    // What save() wrote is what the document holds.
    let reloaded = model.find_by_id(save_id).await.unwrap().unwrap();
    assert!(*reloaded == *doc, "the stored document is the saved value");
    assert_eq!(reloaded.version(), doc.version(), "the stored version");
    out
}

fn report(shape: &str, o: &Outcome) -> f64 {
    let save_ns = o.save.as_nanos() as f64 / o.ops as f64;
    let hand_ns = o.hand.as_nanos() as f64 / o.ops as f64;
    let ratio = o.save.as_secs_f64() / o.hand.as_secs_f64();
    let mut rr = o.round_ratios.clone();
    rr.sort_by(f64::total_cmp);
    println!(
        "{shape}: save() {:.1} us/op, update_one {:.1} us/op, ratio {ratio:.3} \
         (per-round ratios {:.3}..{:.3}, median {:.3}), {} ops per side",
        save_ns / 1e3,
        hand_ns / 1e3,
        rr[0],
        rr[rr.len() - 1],
        rr[rr.len() / 2],
        o.ops
    );
    println!("E2E {shape} save_ns {save_ns:.0}");
    println!("E2E {shape} update_one_ns {hand_ns:.0}");
    println!("E2E {shape} ratio {ratio:.2}");
    ratio
}

fn main() {
    let quick = common::quick();
    let words: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    // `CPU [words]`: only the CPU rows (benches/cpu), for the shapes, round
    // trips and runtimes the words name.
    if let Some(at) = words.iter().position(|w| w == "CPU") {
        let started = Instant::now();
        cpu::run(&cpu::Config::from_words(&words[at + 1..], quick));
        eprintln!("e2e CPU rows took {:.1} s", started.elapsed().as_secs_f64());
        return;
    }
    let everything = words.is_empty();
    let shapes = match everything {
        true => vec!["S".into(), "M".into(), "L".into(), "BULK".into()],
        false => words,
    };
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(wall_rows(shapes, quick));
    // Without words: the CPU rows too, every shape, round trip and runtime.
    if everything {
        cpu::run(&cpu::Config::from_words(&[], quick));
    }
}

async fn wall_rows(shapes: Vec<String>, quick: bool) {
    // Quick mode (`ODM_BENCH_QUICK=1`): one round of 4 ops per side (1 for
    // L), every assertion checked, in seconds.
    let rounds = env_usize("ODM_E2E_ROUNDS", if quick { 1 } else { 10 });
    let ops = env_usize("ODM_E2E_OPS", if quick { 4 } else { 200 });

    let t = TestDb::new().await;
    let mut rng = Rng::new(0x0D0D_E2E0);
    let mut worst: f64 = 0.0;
    let started = Instant::now();
    for shape in &shapes {
        if shape == "BULK" {
            // Many Docs at once: its own rows (benches/bulk).
            bulk::run(&t.db, quick).await;
            continue;
        }
        let o = match shape.as_str() {
            "S" => {
                let (a, b) = (stored(&small(&mut rng)), stored(&small(&mut rng)));
                run_shape(&Small::model(&t.db), &a, &b, rounds, ops).await
            }
            "M" | "L" => {
                let (comments, ops) = if shape == "M" {
                    (50, ops)
                } else {
                    (2000, (ops / 10).max(1))
                };
                let a = stored(&article(&mut rng, comments));
                let b = stored(&article(&mut rng, comments));
                run_shape(&Article::model(&t.db), &a, &b, rounds, ops).await
            }
            other => panic!("unknown shape {other:?} (S, M or L)"),
        };
        worst = worst.max(report(shape, &o));
    }
    println!("E2E ratio {worst:.2}");
    eprintln!("e2e bench took {:.1} s", started.elapsed().as_secs_f64());
    t.finish().await;
}
