//! References against the server: `find_refs` of 1,000 refs (100
//! distinct targets) against a `find_by_id` loop over the refs and
//! against the raw driver's `$in` of the de-duplicated ids (decoding the
//! same struct); and what a referential rule costs a write that adds a
//! reference and a delete of a target, next to the same models without
//! the rule.
//!
//! `cargo bench --bench refs [-- FILTER...]` runs against the local
//! SecantusDB server (or `MONGODB_URI`). Quick mode (`ODM_BENCH_QUICK=1`)
//! runs everything a few times with every check, on 100 refs to 10
//! authors.
//!
//! `find_refs`, its lean form and the raw `$in` are alternated call by
//! call (each first every third call), so load bursts from other
//! processes fall on the three alike: `ODM_REFS_ROUNDS` (default 10)
//! rounds of `ODM_REFS_OPS` (default 30) calls of each, after a warm-up
//! of a tenth of that. Each call's wall time and this process's CPU time
//! (`getrusage`: the server is another process) are summed per form; the
//! `COMPARE` lines give the ratios of the sums (wall, then CPU) and the
//! spread of the per-round wall ratios. Every call checks what it read.
//!
//! The `find_by_id` loop and the rule rows are rows as in
//! `benches/shapes.rs` (`SHAPE ROW NS` lines, filters, runs; the figure
//! is the bench thread's CPU, the wall-clock column is what the rule rows
//! are about, since they add round trips). Before timing, the rule rows
//! check that their writes landed (and, for the ruled ones, marked the
//! target). A filter keeps the alternated rows when it matches
//! `1000 alternated find_refs find_refs_lean raw_in`.

mod common;
#[path = "cpu/usage.rs"]
mod usage;

use std::collections::HashSet;
use std::future::IntoFuture;
use std::time::{Duration, Instant};

use common::harness::{measure, median, median_wall, print, Plan};
use common::{env_usize, Rng};
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
    let forms = Forms {
        rt: &rt,
        authors: &authors,
        raw: authors.collection().clone_with_type::<Author>(),
        refs: &refs,
        distinct,
    };
    let alternated = plan
        .wants("1000 alternated find_refs find_refs_lean raw_in")
        .then(|| alternate(&forms, plan.quick));
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
    // Only when its row ran (a filter may leave it out).
    let marks = plan.wants("rule insert_ruled").then(|| {
        block(
            &rt,
            ruled_users
                .collection()
                .find_one(doc! { "_id": ruled_author.id }),
        )
        .unwrap()
        .unwrap()
        .get_i64("__refs")
        .unwrap()
    });
    assert!(
        marks.is_none_or(|n| n >= 1),
        "the ruled inserts marked their author"
    );
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
    if let Some(sums) = &alternated {
        sums.print();
        if let Some(looped) = wall("1000", "find_by_id_loop") {
            let per_call = sums.wall[FIND_REFS].as_nanos() as f64 / sums.calls as f64;
            println!("COMPARE find_by_id_loop/find_refs {:.2}", looped / per_call);
        }
    }
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

/// The three forms of the same read of `refs`' targets, each checking
/// what it read. Not inlined, so a profile names each (see
/// BENCHMARKS.md).
struct Forms<'a> {
    rt: &'a Runtime,
    authors: &'a Model<Author>,
    raw: mongodb::Collection<Author>,
    refs: &'a [Ref<Author>],
    distinct: usize,
}

impl Forms<'_> {
    #[inline(never)]
    fn find_refs(&self) {
        let found = block(self.rt, self.authors.find_refs(self.refs)).unwrap();
        assert_eq!((found.len(), found.missing().count()), (self.distinct, 0));
    }

    #[inline(never)]
    fn lean(&self) {
        let found = block(self.rt, self.authors.find_refs(self.refs).lean()).unwrap();
        assert_eq!((found.len(), found.missing().count()), (self.distinct, 0));
    }

    /// What a user writes with the driver: de-duplicate the ids, one
    /// `find` of `{_id: {$in: ids}}`, decode into the same struct.
    #[inline(never)]
    fn raw_in(&self) {
        let mut seen = HashSet::new();
        let ids: Vec<ObjectId> = self
            .refs
            .iter()
            .filter_map(|r| r.id().as_object_id())
            .filter(|id| seen.insert(*id))
            .collect();
        let cursor = block(self.rt, self.raw.find(doc! { "_id": { "$in": ids } })).unwrap();
        let found: Vec<Author> = self.rt.block_on(cursor.try_collect()).unwrap();
        assert_eq!(found.len(), self.distinct);
    }

    fn call(&self, form: usize) {
        match form {
            FIND_REFS => self.find_refs(),
            LEAN => self.lean(),
            _ => self.raw_in(),
        }
    }
}

const FIND_REFS: usize = 0;
const LEAN: usize = 1;
const RAW_IN: usize = 2;
const FORM_NAMES: [&str; 3] = ["find_refs", "find_refs_lean", "raw_in"];

/// Wall and CPU time of each form, summed over its timed calls.
struct Sums {
    /// Untimed calls of each form first.
    warm_up: usize,
    calls: usize,
    wall: [Duration; 3],
    cpu: [Duration; 3],
    /// Per round: `find_refs` / raw and lean / raw, by the wall clock.
    round_ratios: Vec<[f64; 2]>,
}

/// Runs the three forms call by call, each first every third call.
fn alternate(forms: &Forms, quick: bool) -> Sums {
    let rounds = env_usize("ODM_REFS_ROUNDS", if quick { 1 } else { 10 });
    let ops = env_usize("ODM_REFS_OPS", if quick { 3 } else { 30 });
    let warm_up = (rounds * ops / 10).max(1);
    for i in 0..warm_up {
        (0..3).for_each(|k| forms.call((i + k) % 3));
    }
    let mut sums = Sums {
        warm_up,
        calls: rounds * ops,
        wall: [Duration::ZERO; 3],
        cpu: [Duration::ZERO; 3],
        round_ratios: Vec::new(),
    };
    for _ in 0..rounds {
        let mut wall = [Duration::ZERO; 3];
        for i in 0..ops {
            for k in 0..3 {
                let form = (i + k) % 3;
                let (cpu, start) = (usage::process_cpu(), Instant::now());
                forms.call(form);
                wall[form] += start.elapsed();
                sums.cpu[form] += usage::process_cpu().saturating_sub(cpu);
            }
        }
        let raw = wall[RAW_IN].as_secs_f64();
        sums.round_ratios.push([
            wall[FIND_REFS].as_secs_f64() / raw,
            wall[LEAN].as_secs_f64() / raw,
        ]);
        (0..3).for_each(|f| sums.wall[f] += wall[f]);
    }
    sums
}

impl Sums {
    /// `ALT FORM wall_us W cpu_us C` per form (per call), then the
    /// ratios to the raw `$in`.
    fn print(&self) {
        let per_call = |d: Duration| d.as_secs_f64() * 1e6 / self.calls as f64;
        println!(
            "alternated: {} timed calls of each form ({} rounds), {} in all with the warm-up",
            self.calls,
            self.round_ratios.len(),
            self.calls + self.warm_up,
        );
        for (f, name) in FORM_NAMES.iter().enumerate() {
            println!(
                "ALT {name} wall_us {:.0} cpu_us {:.0}",
                per_call(self.wall[f]),
                per_call(self.cpu[f])
            );
        }
        for (f, slot) in [(FIND_REFS, 0), (LEAN, 1)] {
            let ratio = |of: &[Duration; 3]| of[f].as_secs_f64() / of[RAW_IN].as_secs_f64();
            let mut rounds: Vec<f64> = self.round_ratios.iter().map(|r| r[slot]).collect();
            rounds.sort_by(f64::total_cmp);
            println!(
                "COMPARE {}/raw_in {:.2} cpu {:.2} (per-round wall {:.2}..{:.2}, median {:.2})",
                FORM_NAMES[f],
                ratio(&self.wall),
                ratio(&self.cpu),
                rounds[0],
                rounds[rounds.len() - 1],
                median(&rounds)
            );
        }
    }
}
