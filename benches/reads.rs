//! Reads against the server: a tracked `find` (`Vec<Doc<T>>`) against a
//! lean one (`.lean()`, plain `T`) and a projection into a two-field type
//! (`.projection::<Card>()`), on the documents of `benches/SHAPES.md`.
//!
//! `cargo bench --bench reads [-- FILTER...]` runs against the local
//! SecantusDB server (or `MONGODB_URI`). Each op is one `find` of every
//! document of a shape: S 100 documents, M 40, L 4 (`ODM_BENCH_QUICK=1`:
//! 10, 4 and 1). The figure is the CPU time of the bench thread per op: the
//! client's whole side (the driver's I/O and decoding run on this thread,
//! in a current-thread runtime), not the server's, which is another
//! process; the wall-clock time, server included, is shown next to it.
//! Before it is timed, each row checks that it returns every stored value.
//! Rows as in `benches/shapes.rs` (`SHAPE ROW NS` lines, filters, runs).

mod common;

use common::harness::{measure, print, Plan, Row};
use common::{article, small, stored, Article, Rng, Small};
use odm::bson::raw::RawDocumentBuf;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use std::future::IntoFuture;

use tokio::runtime::Runtime;

/// What a list of S documents shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
struct SmallCard {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

/// What a list of articles shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
struct ArticleCard {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
}

/// Stores `values` (with `__v: 0`) in `model`'s collection.
fn seed<T: odm::Document>(rt: &Runtime, model: &Model<T>, values: &[T]) -> usize {
    let raw: Vec<RawDocumentBuf> = values.iter().map(stored).collect();
    let bytes = raw.first().map_or(0, |r| r.as_bytes().len());
    let collection = model.collection().clone_with_type::<RawDocumentBuf>();
    rt.block_on(collection.insert_many(raw).into_future())
        .expect("seeded");
    bytes
}

/// The three rows of one shape: every value of `filter` read tracked, lean
/// and projected, each checked against `values` first.
#[allow(clippy::too_many_arguments)]
fn rows<T, C>(
    rt: &Runtime,
    plan: &Plan,
    out: &mut Vec<Row>,
    shape: &'static str,
    model: &Model<T>,
    filter: &odm::bson::Document,
    values: &[T],
    card: impl Fn(&T) -> C,
) where
    T: odm::Document + PartialEq + std::fmt::Debug + Send,
    C: odm::typed::Projection + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug + Send,
{
    let sort = odm::bson::doc! { "_id": 1 };
    let mut sorted: Vec<&T> = values.iter().collect();
    let find = || model.find(filter.clone()).sort(sort.clone());
    let tracked = rt.block_on(find().into_future()).unwrap();
    let lean = rt.block_on(find().lean().into_future()).unwrap();
    let cards = rt.block_on(find().projection::<C>().into_future()).unwrap();
    // The stored order (`_id` ascending) of the values.
    sorted.sort_by_key(|v| {
        let raw = stored(*v);
        raw.get_object_id("_id").unwrap()
    });
    assert_eq!(tracked.len(), values.len());
    assert!(
        tracked.iter().zip(&sorted).all(|(d, v)| **d == **v),
        "tracked values"
    );
    assert!(
        lean.iter().zip(&sorted).all(|(l, v)| l == *v),
        "lean values"
    );
    assert_eq!(lean.len(), values.len());
    let expected: Vec<C> = sorted.iter().map(|v| card(v)).collect();
    assert_eq!(cards, expected, "projected values");

    let n = values.len();
    measure(plan, out, shape, "find_tracked", |_| {
        let found = rt
            .block_on(model.find(filter.clone()).into_future())
            .unwrap();
        assert_eq!(found.len(), n);
    });
    measure(plan, out, shape, "find_lean", |_| {
        let found = rt
            .block_on(model.find(filter.clone()).lean().into_future())
            .unwrap();
        assert_eq!(found.len(), n);
    });
    measure(plan, out, shape, "find_projection", |_| {
        let found = rt
            .block_on(model.find(filter.clone()).projection::<C>().into_future())
            .unwrap();
        assert_eq!(found.len(), n);
    });
}

fn main() {
    let plan = Plan::from_env();
    let (s_docs, m_docs, l_docs) = if plan.quick { (10, 4, 1) } else { (100, 40, 4) };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let t = rt.block_on(TestDb::new());
    let mut rng = Rng::new(19);
    let mut out = Vec::new();

    let smalls: Vec<Small> = (0..s_docs).map(|_| small(&mut rng)).collect();
    let s_model = Model::<Small>::new(&t.db);
    let s_bytes = seed(&rt, &s_model, &smalls);
    rows(
        &rt,
        &plan,
        &mut out,
        "S",
        &s_model,
        &doc! {},
        &smalls,
        |v| SmallCard {
            id: v.id,
            name: v.name.clone(),
        },
    );

    let a_model = Model::<Article>::new(&t.db);
    let lang = Article::fields().lang();
    let mut sizes = vec![("S", s_bytes)];
    for (shape, docs, comments) in [("M", m_docs, 50), ("L", l_docs, 2000)] {
        let articles: Vec<Article> = (0..docs)
            .map(|_| {
                let mut a = article(&mut rng, comments);
                a.lang = shape.to_string();
                a
            })
            .collect();
        sizes.push((shape, seed(&rt, &a_model, &articles)));
        let filter = lang.eq(shape).into();
        rows(
            &rt,
            &plan,
            &mut out,
            shape,
            &a_model,
            &filter,
            &articles,
            |v| ArticleCard {
                id: v.id,
                title: v.title.clone(),
            },
        );
    }
    println!("documents per find: S {s_docs}, M {m_docs}, L {l_docs}");
    print(&out, &sizes, &[]);
    rt.block_on(t.finish());
}
