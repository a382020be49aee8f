//! CPU cost of an enum model (issue 33) against the same struct, on the
//! S and M documents of `benches/SHAPES.md`: `load` (stored bytes to a
//! tracked `Doc` ready to change: decode and snapshot), `save_build`
//! (set `counter`, validate, build the `(filter, update)`) and `cycle`
//! (load, set, validate, build), each for the struct model and for the
//! enum model whose newtype variant holds the same struct (its stored
//! document: the same fields and the kind key). For S, also the struct
//! variant form (the same fields written in the variant, decoded by
//! serde's own internally tagged decoding). Ratio lines `RATIO SHAPE
//! enum_ROW/ROW X` give enum / struct (the target is at most 1.1).
//!
//! `cargo bench --bench kinds [-- FILTER...]`; the same knobs as `shapes`
//! (`ODM_BENCH_RUNS`, `ODM_BENCH_SECS`, `ODM_BENCH_QUICK=1`). No connection
//! is made.

mod common;

use std::hint::black_box;

use common::apply::check_save;
use common::harness::{measure, print, Plan, Row};
use common::{article, small, stored, Article, Rng, Small};
use odm::bson::raw::RawDocumentBuf;
use odm::bson::DateTime;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

/// The enum model of S: the struct as a newtype variant, and the same
/// fields as a struct variant (a model's variants are about one size, as
/// here; an enum is as large as its largest variant).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bench_kinds_s", optimistic_concurrency)]
#[serde(tag = "kind")]
enum Shaped {
    Small(Small),
    #[serde(rename_all = "camelCase")]
    Inline {
        #[serde(rename = "_id")]
        id: ObjectId,
        name: String,
        email: String,
        city: String,
        status: String,
        age: i32,
        score: f64,
        counter: i32,
        active: bool,
        verified: bool,
        created_at: DateTime,
    },
}

/// The enum model of M: the article as a newtype variant, beside another
/// kind. Not boxed: the bench weighs the enum against the same struct held
/// inline, as a user's enum model holds it.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bench_kinds_m", optimistic_concurrency)]
#[serde(tag = "kind")]
enum Written {
    Article(Article),
    Draft {
        #[serde(rename = "_id")]
        id: ObjectId,
        title: String,
    },
}

impl Shaped {
    fn set_counter(&mut self, n: i32) {
        match self {
            Shaped::Small(s) => s.counter = n,
            Shaped::Inline { counter, .. } => *counter = n,
        }
    }
}

impl Written {
    fn set_counter(&mut self, n: i32) {
        match self {
            Written::Article(a) => a.counter = n,
            Written::Draft { .. } => {}
        }
    }
}

fn inline(s: &Small) -> Shaped {
    Shaped::Inline {
        id: s.id,
        name: s.name.clone(),
        email: s.email.clone(),
        city: s.city.clone(),
        status: s.status.clone(),
        age: s.age,
        score: s.score,
        counter: s.counter,
        active: s.active,
        verified: s.verified,
        created_at: s.created_at,
    }
}

/// The update of setting `counter` under `optimistic_concurrency`.
fn counter_update(n: i32) -> odm::bson::Document {
    doc! { "$set": { "counter": n }, "$inc": { "__v": 1 } }
}

/// Loading gives the stored value and no change; setting `counter` is a
/// correct save of exactly `counter_update`, whose filter holds the kind
/// for the enum.
fn check<T>(model: &Model<T>, raw: &RawDocumentBuf, value: &T, set: impl Fn(&mut T, i32))
where
    T: Document + PartialEq + std::fmt::Debug,
{
    let mut doc = model.hydrate(raw).unwrap();
    assert!(*doc == *value, "load gives the stored value");
    assert!(doc.changes().is_none(), "a loaded document has no change");
    set(&mut doc, 7);
    let changes = doc.changes();
    let filter = changes.as_ref().expect("a change").0.clone();
    let update = check_save("save_build_scalar", raw, changes, &*doc);
    assert_eq!(update, counter_update(7));
    if let Some(kinds) = odm::bson::to_document(value).unwrap().get("kind").cloned() {
        assert_eq!(
            filter.get("kind"),
            Some(&kinds),
            "the kind is in the filter"
        );
    }
}

/// The three rows of `value` as `row`, `save_build_scalar` and `cycle`
/// (or their `enum_` names).
fn rows<T>(
    plan: &Plan,
    out: &mut Vec<Row>,
    shape: &'static str,
    names: [&'static str; 3],
    model: &Model<T>,
    value: &T,
    set: impl Fn(&mut T, i32) + Copy,
) where
    T: Document + PartialEq + std::fmt::Debug,
{
    let raw = &stored(value);
    check(model, raw, value, set);
    measure(plan, out, shape, names[0], |_| {
        black_box(model.hydrate(black_box(raw)).unwrap());
    });
    let mut doc = model.hydrate(raw).unwrap();
    measure(plan, out, shape, names[1], |i| {
        set(&mut doc, (i % 1_000_000) as i32 + 1);
        doc.validate().unwrap();
        black_box(doc.changes().unwrap());
    });
    measure(plan, out, shape, names[2], |i| {
        let mut doc = model.hydrate(black_box(raw)).unwrap();
        set(&mut doc, (i % 1_000_000) as i32 + 1);
        doc.validate().unwrap();
        black_box(doc.changes().unwrap());
    });
}

const STRUCT: [&str; 3] = ["load", "save_build_scalar", "cycle"];
const ENUM: [&str; 3] = ["enum_load", "enum_save_build_scalar", "enum_cycle"];
const INLINE: [&str; 3] = [
    "struct_variant_load",
    "struct_variant_save_build_scalar",
    "struct_variant_cycle",
];

fn ratios(rows: &[Row]) {
    let find = |shape: &str, row: &str| {
        rows.iter()
            .find(|r| r.shape == shape && r.row == row)
            .map(Row::ns)
    };
    println!();
    for shape in ["S", "M"] {
        for (i, base) in STRUCT.iter().enumerate() {
            for other in [ENUM[i], INLINE[i]] {
                if let (Some(a), Some(b)) = (find(shape, other), find(shape, base)) {
                    println!("RATIO {shape} {other}/{base} {:.2}", a / b);
                }
            }
        }
    }
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
        // The same documents as `shapes` (the same seed).
        let mut rng = Rng::new(0x0D0D_BE4C);
        let s = small(&mut rng);
        let m = article(&mut rng, 50);
        if plan.quick {
            eprintln!("odm kinds bench, quick mode (ODM_BENCH_QUICK): a few ops per row");
        }
        let sizes = [
            ("S", stored(&Shaped::Small(s.clone())).as_bytes().len()),
            ("M", stored(&Written::Article(m.clone())).as_bytes().len()),
        ];
        let mut out = Vec::new();
        let (smalls, articles) = (Small::model(&db), Article::model(&db));
        let (shaped, written) = (Shaped::model(&db), Written::model(&db));
        let set_small = |d: &mut Small, n| d.counter = n;
        let set_article = |d: &mut Article, n| d.counter = n;
        let set_shaped = |d: &mut Shaped, n| d.set_counter(n);
        let set_written = |d: &mut Written, n| d.set_counter(n);
        rows(&plan, &mut out, "S", STRUCT, &smalls, &s, set_small);
        rows(
            &plan,
            &mut out,
            "S",
            ENUM,
            &shaped,
            &Shaped::Small(s.clone()),
            set_shaped,
        );
        rows(
            &plan,
            &mut out,
            "S",
            INLINE,
            &shaped,
            &inline(&s),
            set_shaped,
        );
        rows(&plan, &mut out, "M", STRUCT, &articles, &m, set_article);
        rows(
            &plan,
            &mut out,
            "M",
            ENUM,
            &written,
            &Written::Article(m.clone()),
            set_written,
        );
        print(&out, &sizes, &[]);
        ratios(&out);
        client.shutdown().await;
    });
}
