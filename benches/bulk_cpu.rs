//! odm's CPU per `Doc` in a `bulk_save` batch against one `save()`'s, in
//! process, no server: what odm builds before the driver sends anything.
//!
//! - `S save_build_scalar`: one loaded S document (`benches/SHAPES.md`),
//!   `counter` set, `doc.validate()`, `doc.changes()` (the `(filter,
//!   update)` a save sends), as the `shapes` bench's row of that name.
//! - `S save_build_whole`: the same document, `counter` set, and all a
//!   `save()` of it does before the driver sends
//!   (`odm::__private::save_build`): the deleted check and `before_save`,
//!   validators, the plan, the shard key rule, the request built by the
//!   one request builder, and the filter copy the update sends.
//! - `S save_build_each`: the batch's Docs below (1,000 loaded S
//!   documents), `counter` set on each and each built as
//!   `save_build_whole` builds one, in turn: the save loop's work for the
//!   same Docs, whose memory it touches as the batch does (the row above
//!   rebuilds one Doc, which stays in the CPU's cache).
//! - `S bulk_build_bulkwrite`: 1,000 loaded S documents (`ODM_BULK_BUILD_DOCS`),
//!   `counter` set on each, then what `bulk_save` does before sending them
//!   by `bulkWrite`: each `Doc` made ready (hooks, validators, the plan, its
//!   filter and update) and the driver's write models built.
//! - `S bulk_build_commands`: the same, then the `update` command of
//!   servers before MongoDB 8.0 encoded to bytes (odm encodes it; on the
//!   `bulkWrite` path the driver does).
//!
//! Neither side commits (a landed write's commit costs both the same).
//! `cargo bench --bench bulk_cpu` prints one `BULK_CPU ROW NS_PER_DOC` line
//! per row and `BULK_CPU ratio_* X` lines (bulk per `Doc` / one save's build, / one
//! whole save, and / a whole save of each of the same Docs);
//! `ODM_BENCH_QUICK=1` runs each row a few ops, with every check. The
//! figure is the median CPU time of the bench thread per op (the `shapes`
//! harness), divided by the `Doc`s of the op.

mod common;

use std::hint::black_box;

use common::apply::check_save;
use common::harness::{measure, Plan, Row};
use common::{small, stored, Rng, Small};
use odm::__private::{bulk_build, save_build, BulkPath};
use odm::prelude::*;

fn counter_value(i: u64) -> i32 {
    (i % 1_000_000) as i32 + 1
}

/// `n` loaded S documents, distinct ids.
fn loaded(model: &Model<Small>, rng: &mut Rng, n: usize) -> Vec<Doc<Small>> {
    (0..n)
        .map(|_| model.hydrate(&stored(&small(rng))).unwrap())
        .collect()
}

fn main() {
    let plan = Plan::from_env();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let docs_per_batch = if plan.quick {
        20
    } else {
        common::env_usize("ODM_BULK_BUILD_DOCS", 1000)
    };
    runtime.block_on(async {
        // Only the collection handles are needed; nothing connects.
        let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/")
            .await
            .expect("a client");
        let model = Small::model(&client.database("odm_bench"));
        let mut rng = Rng::new(0x0B0C_CB01);
        let mut rows: Vec<(Row, usize)> = Vec::new();
        let mut out = Vec::new();

        // One save.
        let one = small(&mut rng);
        let raw = stored(&one);
        let mut doc = model.hydrate(&raw).unwrap();
        doc.counter = 7;
        check_save("save_build_scalar", &raw, doc.changes(), &*doc);
        measure(&plan, &mut out, "S", "save_build_scalar", |i| {
            doc.counter = counter_value(i);
            doc.validate().unwrap();
            black_box(doc.changes().unwrap());
        });
        measure(&plan, &mut out, "S", "save_build_whole", |i| {
            doc.counter = counter_value(i);
            black_box(save_build(black_box(&mut doc)));
        });
        rows.extend(out.drain(..).map(|r| (r, 1)));

        // The same number of Docs saved one at a time: each save's build,
        // as `save_build_whole`, but over the batch's Docs in turn, so its
        // memory is touched as a batch touches it (the row above builds
        // one Doc over and over, always in cache).
        let mut batch = loaded(&model, &mut rng, docs_per_batch);
        measure(&plan, &mut out, "S", "save_build_each", |i| {
            for doc in batch.iter_mut() {
                doc.counter = counter_value(i);
                black_box(save_build(black_box(doc)));
            }
        });
        rows.extend(out.drain(..).map(|r| (r, docs_per_batch)));

        // A batch, both ways.
        for (row, path) in [
            ("bulk_build_bulkwrite", BulkPath::BulkWrite),
            ("bulk_build_commands", BulkPath::Commands),
        ] {
            for (i, doc) in batch.iter_mut().enumerate() {
                doc.counter = counter_value(i as u64);
            }
            // What the batch sends for a Doc is what its save sends.
            let first = batch[0].changes();
            assert!(first.is_some());
            assert_eq!(bulk_build(&model, &mut batch, path), docs_per_batch);
            assert_eq!(batch[0].changes(), first, "nothing committed");
            measure(&plan, &mut out, "S", row, |i| {
                for doc in batch.iter_mut() {
                    doc.counter = counter_value(i);
                }
                black_box(bulk_build(&model, black_box(&mut batch), path));
            });
            rows.extend(out.drain(..).map(|r| (r, docs_per_batch)));
        }

        println!();
        println!("| row | Docs per op | CPU ns per Doc |");
        println!("|---|---:|---:|");
        for (r, n) in &rows {
            println!("| {} | {n} | {:.0} |", r.row, r.ns() / *n as f64);
        }
        println!();
        let per_doc = |name: &str| {
            rows.iter()
                .find(|(r, _)| r.row == name)
                .map(|(r, n)| r.ns() / *n as f64)
        };
        for (r, n) in &rows {
            println!("BULK_CPU {} {:.0}", r.row, r.ns() / *n as f64);
        }
        for (save_row, name) in [
            ("save_build_scalar", "save"),
            ("save_build_whole", "whole_save"),
            ("save_build_each", "each_save"),
        ] {
            let Some(save) = per_doc(save_row) else {
                continue;
            };
            for row in ["bulk_build_bulkwrite", "bulk_build_commands"] {
                if let Some(bulk) = per_doc(row) {
                    println!("BULK_CPU ratio_{row}_vs_{name} {:.2}", bulk / save);
                }
            }
        }
    });
}
