//! References against the server: `find_refs` of 1,000 refs (100
//! distinct targets) against a `find_by_id` loop over the refs and
//! against the raw driver's `$in` of the de-duplicated ids (decoding the
//! same struct); and what a referential rule costs a write that adds a
//! reference and a delete of a target, next to the same models without
//! the rule.
//!
//! `cargo bench --bench refs [-- FILTER...]` runs against the local
//! SecantusDB server (or `MONGODB_URI`). Rows as in `benches/shapes.rs`
//! (`SHAPE ROW NS` lines, filters, runs); quick mode (`ODM_BENCH_QUICK=1`)
//! runs every row a few times with every check, on 100 refs to 10
//! authors. Before timing, the
//! `find_refs` rows check they read every target once, and the rule rows
//! that their writes landed (and, for the ruled ones, marked the target).
//! Each row's figure is the bench thread's CPU; the wall-clock column,
//! server included, is what the rule rows are about (they add round
//! trips), and the `COMPARE` lines give the wall-clock ratios.

mod common;

use std::collections::HashSet;
use std::future::IntoFuture;

use common::harness::{measure, median_wall, print, Plan};
use common::Rng;
use futures_util::TryStreamExt;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use tokio::runtime::Runtime;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bench_authors")]
struct Author {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    email: String,
    karma: i64,
}

/// The target of a rule, and the same document without one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bench_ruled_users", referenced_by(RuledPost))]
struct RuledUser {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bench_ruled_posts")]
struct RuledPost {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    #[odm(reference(on_delete = refuse), index)]
    author: Ref<RuledUser>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bench_plain_users")]
struct PlainUser {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bench_plain_posts", index(keys(author = 1)))]
struct PlainPost {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    author: Ref<PlainUser>,
}

fn block<F: IntoFuture>(rt: &Runtime, f: F) -> F::Output {
    rt.block_on(f.into_future())
}

fn main() {
    let plan = Plan::from_env();
    // Quick mode: 100 refs to 10 authors (the loop row would take a
    // minute at full size).
    let (refs_n, distinct) = if plan.quick { (100, 10) } else { (1_000, 100) };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let t = rt.block_on(TestDb::new());
    let mut rng = Rng::new(32);
    let mut out = Vec::new();

    // find_refs: 1,000 refs to 100 authors.
    let authors = Author::model(&t.db);
    let team: Vec<Author> = (0..distinct)
        .map(|i| Author {
            id: ObjectId::new(),
            name: format!("author {i}"),
            email: format!("author{i}@example.com"),
            karma: i as i64,
        })
        .collect();
    block(&rt, authors.insert_many(team.clone())).expect("seeded");
    let refs: Vec<Ref<Author>> = (0..refs_n)
        .map(|_| Ref::from(&team[rng.below(distinct)]))
        .collect();
    let found = block(&rt, authors.find_refs(&refs)).unwrap();
    assert_eq!((found.len(), found.missing().count()), (distinct, 0));
    assert!(refs.iter().all(|r| found.get(r).is_some()));
    let raw = authors.collection().clone_with_type::<Author>();
    let raw_in = || {
        let mut seen = HashSet::new();
        let ids: Vec<ObjectId> = refs
            .iter()
            .filter_map(|r| r.id().as_object_id())
            .filter(|id| seen.insert(*id))
            .collect();
        let cursor = block(&rt, raw.find(doc! { "_id": { "$in": ids } })).unwrap();
        let found: Vec<Author> = rt.block_on(cursor.try_collect()).unwrap();
        found
    };
    assert_eq!(raw_in().len(), distinct);
    measure(&plan, &mut out, "1000", "find_refs", |_| {
        let found = block(&rt, authors.find_refs(&refs)).unwrap();
        assert_eq!(found.len(), distinct);
    });
    measure(&plan, &mut out, "1000", "find_refs_lean", |_| {
        let found = block(&rt, authors.find_refs(&refs).lean()).unwrap();
        assert_eq!(found.len(), distinct);
    });
    measure(&plan, &mut out, "1000", "raw_in", |_| {
        assert_eq!(raw_in().len(), distinct);
    });
    measure(&plan, &mut out, "1000", "find_by_id_loop", |_| {
        for r in &refs {
            let author = block(&rt, authors.find_by_id(r.id().clone())).unwrap();
            assert!(author.is_some());
        }
    });

    // A rule's cost: an insert that refers to a target, a delete of a
    // target nothing refers to.
    let (ruled_users, ruled_posts) = (RuledUser::model(&t.db), RuledPost::model(&t.db));
    let (plain_users, plain_posts) = (PlainUser::model(&t.db), PlainPost::model(&t.db));
    block(&rt, ruled_posts.sync_indexes()).unwrap();
    block(&rt, plain_posts.sync_indexes()).unwrap();
    let ruled_author = block(
        &rt,
        ruled_users.create(RuledUser {
            id: ObjectId::new(),
            name: "a".into(),
        }),
    )
    .unwrap();
    let plain_author = block(
        &rt,
        plain_users.create(PlainUser {
            id: ObjectId::new(),
            name: "a".into(),
        }),
    )
    .unwrap();
    let ruled_to = Ref::from(&*ruled_author);
    let plain_to = Ref::from(&*plain_author);
    measure(&plan, &mut out, "rule", "insert_plain", |_| {
        let post = PlainPost {
            id: ObjectId::new(),
            title: "t".into(),
            author: plain_to.clone(),
        };
        block(&rt, plain_posts.create(post)).unwrap();
    });
    measure(&plan, &mut out, "rule", "insert_ruled", |_| {
        let post = RuledPost {
            id: ObjectId::new(),
            title: "t".into(),
            author: ruled_to.clone(),
        };
        block(&rt, ruled_posts.create(post)).unwrap();
    });
    let marks = block(
        &rt,
        ruled_users
            .collection()
            .find_one(doc! { "_id": ruled_author.id }),
    )
    .unwrap()
    .unwrap()
    .get_i64("__refs")
    .unwrap();
    assert!(marks >= 1, "the ruled inserts marked their author");
    measure(&plan, &mut out, "rule", "delete_plain", |_| {
        let mut user = block(
            &rt,
            plain_users.create(PlainUser {
                id: ObjectId::new(),
                name: "d".into(),
            }),
        )
        .unwrap();
        block(&rt, user.delete()).unwrap();
    });
    measure(&plan, &mut out, "rule", "delete_ruled", |_| {
        let mut user = block(
            &rt,
            ruled_users.create(RuledUser {
                id: ObjectId::new(),
                name: "d".into(),
            }),
        )
        .unwrap();
        block(&rt, user.delete()).unwrap();
    });
    measure(&plan, &mut out, "rule", "create_only", |_| {
        block(
            &rt,
            plain_users.create(PlainUser {
                id: ObjectId::new(),
                name: "d".into(),
            }),
        )
        .unwrap();
    });

    print(&out, &[], &[]);
    let wall = |shape: &str, row: &str| {
        out.iter()
            .find(|r| r.shape == shape && r.row == row)
            .map(median_wall)
    };
    let compare = |what: &str, a: (&str, &str), b: (&str, &str)| {
        if let (Some(x), Some(y)) = (wall(a.0, a.1), wall(b.0, b.1)) {
            println!("COMPARE {what} {:.2}", x / y);
        }
    };
    println!();
    compare(
        "find_refs/raw_in",
        ("1000", "find_refs"),
        ("1000", "raw_in"),
    );
    compare(
        "find_refs_lean/raw_in",
        ("1000", "find_refs_lean"),
        ("1000", "raw_in"),
    );
    compare(
        "find_by_id_loop/find_refs",
        ("1000", "find_by_id_loop"),
        ("1000", "find_refs"),
    );
    compare(
        "insert_ruled/insert_plain",
        ("rule", "insert_ruled"),
        ("rule", "insert_plain"),
    );
    // The delete rows each create their user first: `create_only` is that
    // part alone.
    if let (Some(r), Some(p), Some(c)) = (
        wall("rule", "delete_ruled"),
        wall("rule", "delete_plain"),
        wall("rule", "create_only"),
    ) {
        println!("COMPARE delete_ruled/delete_plain {:.2}", (r - c) / (p - c));
    }
    rt.block_on(t.finish());
}
