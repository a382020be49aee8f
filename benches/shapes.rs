//! CPU cost of odm's per-document work on the three documents of
//! `benches/SHAPES.md`: load, save_build (scalar / push) and delta; and growth rows
//! (`common/large.rs`): `changes()` on large maps and arrays at N and 4N
//! elements, with the ratio between the two.
//!
//! `cargo bench --bench shapes [-- FILTER...]` prints a table, then one
//! `SHAPE ROW NS` line per row and one `GROWTH ROW RATIO` line per growth
//! row. A row runs when its `SHAPE ROW` contains every FILTER (e.g. `-- L`,
//! `-- load` or `-- map`). `ODM_BENCH_RUNS` (default 5) and
//! `ODM_BENCH_SECS` (default 1) set the runs per row and their minimum
//! length; a row whose one op takes longer than a run gets 3 runs of one
//! op. `ODM_BENCH_QUICK=1` runs each row a few ops on small growth sizes,
//! checking every assertion, in seconds (what CI runs).
//! The figure reported is the median of the per-run CPU time of the bench
//! thread per op (`/proc/thread-self/schedstat`), so other processes on a
//! shared machine do not inflate it; the wall-clock median is shown next to
//! it (and used where CPU time cannot be read).
//! Every row checks, before it is timed, that what it measures is a correct
//! save (`common/apply.rs`). No connection is made: the model's client
//! points at a closed port.

mod common;

use std::hint::black_box;

use common::apply::check_save;
use common::harness::{measure, print, Plan, Row};
use common::large::{bench_growth, growth, Large};
use common::{article, comment, small, stored, Article, Comment, Rng, Small};
use odm::bson::raw::RawDocumentBuf;
use odm::bson::Document as BsonDocument;
use odm::prelude::*;

/// A loaded document whose `counter` is set to a non-zero value.
fn counter_value(i: u64) -> i32 {
    (i % 1_000_000) as i32 + 1
}

/// The update of setting `counter` under `optimistic_concurrency`.
fn counter_update(n: i32) -> BsonDocument {
    doc! { "$set": { "counter": n }, "$inc": { "__v": 1 } }
}

/// The rows' checks: loading gives the stored value and no change; setting
/// `counter` is a correct save sending exactly `counter_update`.
fn check_load_and_counter<T, F>(model: &Model<T>, raw: &RawDocumentBuf, value: &T, set: F)
where
    T: Document + PartialEq + std::fmt::Debug,
    F: Fn(&mut T, i32),
{
    let mut doc = model.hydrate(raw).unwrap();
    assert!(*doc == *value, "load gives the stored value");
    assert!(doc.changes().is_none(), "a loaded document has no change");
    set(&mut doc, 7);
    let update = check_save("save_build_scalar", raw, doc.changes(), &*doc);
    assert_eq!(update, counter_update(7));
}

fn bench_small(plan: &Plan, out: &mut Vec<Row>, model: &Model<Small>, value: &Small) {
    let raw = &stored(value);
    check_load_and_counter(model, raw, value, |d, n| d.counter = n);
    measure(plan, out, "S", "load", |_| {
        black_box(model.hydrate(black_box(raw)).unwrap());
    });
    let mut doc = model.hydrate(raw).unwrap();
    measure(plan, out, "S", "save_build_scalar", |i| {
        doc.counter = counter_value(i);
        doc.validate().unwrap();
        black_box(doc.changes().unwrap());
    });
    let mut doc = model.hydrate(raw).unwrap();
    doc.counter = 7;
    measure(plan, out, "S", "delta_scalar", |_| {
        black_box(black_box(&doc).changes().unwrap());
    });
}

fn bench_article(
    plan: &Plan,
    out: &mut Vec<Row>,
    shape: &'static str,
    model: &Model<Article>,
    value: &Article,
    extra: &Comment,
) {
    let raw = &stored(value);
    check_load_and_counter(model, raw, value, |d, n| d.counter = n);
    measure(plan, out, shape, "load", |_| {
        black_box(model.hydrate(black_box(raw)).unwrap());
    });
    let mut doc = model.hydrate(raw).unwrap();
    measure(plan, out, shape, "save_build_scalar", |i| {
        doc.counter = counter_value(i);
        doc.validate().unwrap();
        black_box(doc.changes().unwrap());
    });

    let mut doc = model.hydrate(raw).unwrap();
    // The push row sends one `$push` and bumps the version.
    doc.comments.push(extra.clone());
    let update = check_save("save_build_push", raw, doc.changes(), &*doc);
    let each = vec![odm::bson::to_bson(extra).unwrap()];
    let push = doc! { "$push": { "comments": { "$each": each } }, "$inc": { "__v": 1 } };
    assert_eq!(update, push);
    doc.comments.pop();
    assert!(doc.changes().is_none(), "the pop undid the push");
    measure(plan, out, shape, "save_build_push", |_| {
        doc.comments.push(extra.clone());
        doc.validate().unwrap();
        black_box(doc.changes().unwrap());
        // Back to the loaded state, so every iteration appends one comment.
        doc.comments.pop();
    });

    let mut doc = model.hydrate(raw).unwrap();
    doc.counter = 7;
    measure(plan, out, shape, "delta_scalar", |_| {
        black_box(black_box(&doc).changes().unwrap());
    });
}

fn main() {
    let plan = Plan::from_env();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        // Only the collection handles are needed; nothing connects.
        let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/")
            .await
            .expect("a client");
        let db = client.database("odm_bench");

        let mut rng = Rng::new(0x0D0D_BE4C);
        let s = small(&mut rng);
        let m = article(&mut rng, 50);
        let l = article(&mut rng, 2000);
        let extra = comment(&mut rng, 2000);
        let sizes = [
            ("S", stored(&s).as_bytes().len()),
            ("M", stored(&m).as_bytes().len()),
            ("L", stored(&l).as_bytes().len()),
        ];

        let mut rows = Vec::new();
        if plan.quick {
            eprintln!("odm shapes bench, quick mode (ODM_BENCH_QUICK): a few ops per row");
        } else {
            eprintln!(
                "odm shapes bench: {} runs of >= {:?} per row",
                plan.runs, plan.min_run
            );
        }
        bench_small(&plan, &mut rows, &Small::model(&db), &s);
        let articles = Article::model(&db);
        bench_article(&plan, &mut rows, "M", &articles, &m, &extra);
        bench_article(&plan, &mut rows, "L", &articles, &l, &extra);
        bench_growth(&plan, &mut rows, &Large::model(&db));
        print(&rows, &sizes, &growth(plan.quick));

        client.shutdown().await;
    });
}
