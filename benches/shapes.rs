//! CPU cost of odm's per-document work on the three documents of
//! `benches/SHAPES.md`: load, save_build (scalar / push), delta, and
//! cycle (load, set `counter`, validate, build the save: the snapshot the
//! first change after a load takes included, which save_build, timed on
//! a `Doc` already changed, leaves out); and growth rows
//! (`common/large.rs`): `changes()` on large maps and arrays at N and 4N
//! elements, with the ratio between the two. Floor rows (`common/floor.rs`)
//! time the same work with `bson` alone and the bare driver's client-side
//! `update_one`, printed as `odm / floor` ratios (`RATIO SHAPE A/B X`
//! lines); stamped rows (`common/stamped.rs`) a save's own CPU, its
//! commit included, of M and L with and without `timestamps`; memory rows (`common/memory.rs`) give the bytes held per tracked
//! `Doc` and per plain value (`MEM SHAPE ROW BYTES` lines).
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
#[path = "common/memory.rs"]
mod memory;

use std::hint::black_box;

use common::apply::check_save;
use common::floor::{counter_request, lsid, update_one_bytes};
use common::harness::{measure, print, Plan, Row};
use common::large::{bench_growth, growth, Large};
use common::stamped::{bench_stamped, print_stamped};
use common::{article, comment, small, stored, Article, Comment, Rng, Small, StampedArticle};
use odm::bson::raw::RawDocumentBuf;
use odm::bson::Document as BsonDocument;
use odm::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

#[global_allocator]
static ALLOC: memory::Counting = memory::Counting;

/// Bytes held per value, as `(shape, row, bytes)`.
type Held = Vec<(&'static str, &'static str, usize)>;

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

/// The floor rows (`common/floor.rs`) of `value`, stored as `raw`, whose
/// `save_build_scalar` sends what [`counter_request`] builds, and the
/// memory rows of it: a tracked `Doc` as loaded (holding the stored bytes)
/// and after its first change (holding the snapshot), and a plain `T`.
fn bench_floor<T>(
    plan: &Plan,
    out: &mut Vec<Row>,
    held: &mut Held,
    shape: &'static str,
    model: &Model<T>,
    value: &T,
    set: impl Fn(&mut T, i32),
) where
    T: Document + Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let raw = &stored(value);
    let id = odm::bson::to_document(value)
        .unwrap()
        .get("_id")
        .unwrap()
        .clone();
    let mut doc = model.hydrate(raw).unwrap();
    set(&mut doc, 7);
    assert_eq!(
        doc.changes(),
        Some(counter_request(&id, 0, 7)),
        "the driver row sends what odm sends"
    );
    let decoded: T = odm::bson::from_slice(raw.as_bytes()).unwrap();
    assert!(decoded == *value, "bson decodes the stored value");

    measure(plan, out, shape, "floor_ser", |_| {
        black_box(odm::bson::to_vec(black_box(value)).unwrap());
    });
    measure(plan, out, shape, "floor_ser_raw", |_| {
        black_box(odm::bson::to_raw_document_buf(black_box(value)).unwrap());
    });
    measure(plan, out, shape, "floor_de", |_| {
        black_box(odm::bson::from_slice::<T>(black_box(raw.as_bytes())).unwrap());
    });
    measure(plan, out, shape, "floor_request", |i| {
        black_box(counter_request(black_box(&id), 0, counter_value(i)));
    });
    let session = lsid();
    measure(plan, out, shape, "floor_update_one", |i| {
        let (filter, update) = counter_request(black_box(&id), 0, counter_value(i));
        black_box(update_one_bytes(
            "odm_bench",
            "bench",
            &filter,
            &update,
            &session,
        ));
    });

    if plan.wants(&format!("{shape} memory")) {
        let n = if shape == "L" { 20 } else { 500 };
        held.push((shape, "stored_bytes", raw.as_bytes().len()));
        held.push((
            shape,
            "doc_loaded",
            memory::held(n, || model.hydrate(raw).unwrap()),
        ));
        let changed = memory::held(n, || {
            let mut doc = model.hydrate(raw).unwrap();
            set(&mut doc, 7);
            doc
        });
        held.push((shape, "doc_changed", changed));
        let plain = || odm::bson::from_slice::<T>(raw.as_bytes()).unwrap();
        held.push((shape, "plain_value", memory::held(n, plain)));
    }
}

/// `odm / floor` for each row that has a floor, then the memory rows.
fn print_floors(rows: &[Row], held: &Held) {
    const PAIRS: [(&str, &str); 6] = [
        ("load", "floor_de"),
        ("save_build_scalar", "floor_ser"),
        ("save_build_scalar", "floor_ser_raw"),
        ("save_build_scalar", "floor_request"),
        ("save_build_scalar", "floor_update_one"),
        ("delta_scalar", "floor_ser"),
    ];
    let find = |shape: &str, row: &str| {
        rows.iter()
            .find(|r| r.shape == shape && r.row == row)
            .map(Row::ns)
    };
    let mut lines = Vec::new();
    for shape in ["S", "M", "L"] {
        for (odm_row, floor_row) in PAIRS {
            if let (Some(a), Some(b)) = (find(shape, odm_row), find(shape, floor_row)) {
                lines.push((shape, odm_row, floor_row, a, b));
            }
        }
    }
    if !lines.is_empty() {
        println!();
        println!("| shape | odm row | floor row | odm ns | floor ns | odm / floor |");
        println!("|---|---|---|---:|---:|---:|");
        for (shape, a_row, b_row, a, b) in &lines {
            println!(
                "| {shape} | {a_row} | {b_row} | {a:.0} | {b:.0} | {:.2} |",
                a / b
            );
        }
    }
    if !held.is_empty() {
        println!();
        println!("| shape | held | bytes per value |");
        println!("|---|---|---:|");
        for (shape, row, bytes) in held {
            println!("| {shape} | {row} | {bytes} |");
        }
    }
    println!();
    for (shape, a_row, b_row, a, b) in &lines {
        println!("RATIO {shape} {a_row}/{b_row} {:.2}", a / b);
    }
    for (shape, row, bytes) in held {
        println!("MEM {shape} {row} {bytes}");
    }
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
    measure(plan, out, "S", "cycle", |i| {
        let mut doc = model.hydrate(black_box(raw)).unwrap();
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
    measure(plan, out, shape, "cycle", |i| {
        let mut doc = model.hydrate(black_box(raw)).unwrap();
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
        let mut held = Held::new();
        if plan.quick {
            eprintln!("odm shapes bench, quick mode (ODM_BENCH_QUICK): a few ops per row");
        } else {
            eprintln!(
                "odm shapes bench: {} runs of >= {:?} per row",
                plan.runs, plan.min_run
            );
        }
        let smalls = Small::model(&db);
        bench_small(&plan, &mut rows, &smalls, &s);
        let set_small = |d: &mut Small, n| d.counter = n;
        bench_floor(&plan, &mut rows, &mut held, "S", &smalls, &s, set_small);
        let articles = Article::model(&db);
        let set_article = |d: &mut Article, n| d.counter = n;
        bench_article(&plan, &mut rows, "M", &articles, &m, &extra);
        bench_floor(&plan, &mut rows, &mut held, "M", &articles, &m, set_article);
        bench_article(&plan, &mut rows, "L", &articles, &l, &extra);
        bench_floor(&plan, &mut rows, &mut held, "L", &articles, &l, set_article);
        let stamped = StampedArticle::model(&db);
        bench_stamped(&plan, &mut rows, "M", (&articles, &stamped), &m);
        bench_stamped(&plan, &mut rows, "L", (&articles, &stamped), &l);
        bench_growth(&plan, &mut rows, &Large::model(&db));
        print(&rows, &sizes, &growth(plan.quick));
        print_floors(&rows, &held);
        print_stamped(&rows);

        client.shutdown().await;
    });
}
