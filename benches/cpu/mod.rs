//! The `CPU` rows of `e2e`: the client's CPU per round trip of odm's calls
//! beside the driver call a user would write by hand for the same command,
//! on the same server, in one run, on tokio's multi-thread and
//! current-thread runtimes.
//!
//! Per shape (S, M, L) and round trip: `save()` of one scalar, of one
//! pushed comment and of a whole-array rewrite (`tags` reordered; S has no
//! array, so only its scalar row), a `Doc` loaded, changed (one scalar)
//! and saved (`load_save`), `find_by_id`, `bulk_save` of every
//! document (1,000; L 100) and `find` of every document. Each side has its
//! own database holding the same documents (same `_id`s), and both apply
//! the same changes, so they send the same commands: before timing, a
//! monitored client runs a few round trips of each side and asserts that
//! the commands (names, count and bodies, the session, cluster time, cursor
//! id and database name aside) are equal; after timing, both databases
//! must hold the same documents, and odm's `Doc`s the stored ones.
//!
//! The figure is this process's CPU time (`getrusage(RUSAGE_SELF)`, user +
//! system: the calling task, tokio's workers, the driver's own tasks;
//! the server is another process) per round trip, taken around each
//! round trip in a spawned task (where a service's handler runs). The
//! sides alternate in blocks (`ODM_CPU_OPS` round trips each, each side
//! first every other round, `ODM_CPU_ROUNDS` rounds); a push is taken back
//! after each timed round trip (untimed), so the document keeps its size.
//! `ODM_CPU_DOCS` sets the documents of `bulk_save` and `find`;
//! `ODM_CPU_REACH=1` makes odm's side change its `Doc`s through
//! `Doc::field_mut` instead of `DerefMut` (the same commands are sent).
//! `ODM_CPU_ONLY=odm|driver|none` times one side only, or neither (for
//! profiling: the instructions of a run less those of a run with `none`). Quick
//! mode: one round trip per side and row, no warm-up, one round trip per
//! side compared, 4 documents (L: 2): every check, in seconds.

mod ops;
mod pass;
mod usage;
mod verify;

use std::sync::Arc;
use std::time::Duration;

use futures_util::TryStreamExt;
use mongodb::Database;
use odm::bson::raw::RawDocumentBuf;
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm_testing::TestDb;

use crate::common::{article, comment, small, stored, Article, Comment, Rng};
pub use ops::Kind;
use ops::Shape;
use pass::Pass;

/// The runtime a row ran on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Multi,
    Current,
}

impl Flavor {
    fn name(self) -> &'static str {
        match self {
            Flavor::Multi => "multi",
            Flavor::Current => "current",
        }
    }

    fn runtime(self) -> tokio::runtime::Runtime {
        match self {
            Flavor::Multi => tokio::runtime::Builder::new_multi_thread(),
            Flavor::Current => tokio::runtime::Builder::new_current_thread(),
        }
        .enable_all()
        .build()
        .unwrap()
    }
}

/// What to run.
pub struct Config {
    pub quick: bool,
    pub shapes: Vec<String>,
    pub kinds: Vec<Kind>,
    pub flavors: Vec<Flavor>,
}

impl Config {
    /// From the words after `CPU` on the command line: shapes (`S M L`),
    /// round trips (`save_scalar`, `find_by_id`, ..; a prefix such as
    /// `save` picks several) and runtimes (`multi`, `current`); each
    /// defaults to all.
    pub fn from_words(words: &[String], quick: bool) -> Config {
        let pick = |all: Vec<&str>| -> Vec<String> {
            let chosen: Vec<String> = words
                .iter()
                .filter(|w| all.iter().any(|a| a.starts_with(w.as_str())))
                .cloned()
                .collect();
            chosen
        };
        let mut shapes: Vec<String> = pick(vec!["S", "M", "L"]);
        if shapes.is_empty() {
            shapes = vec!["S".into(), "M".into(), "L".into()];
        }
        let kind_words = pick(Kind::ALL.iter().map(|k| k.name()).collect());
        let kinds: Vec<Kind> = Kind::ALL
            .into_iter()
            .filter(|k| kind_words.is_empty() || kind_words.iter().any(|w| k.name().starts_with(w)))
            .collect();
        let flavor_words = pick(vec!["multi", "current"]);
        let flavors = [Flavor::Multi, Flavor::Current]
            .into_iter()
            .filter(|f| flavor_words.is_empty() || flavor_words.iter().any(|w| f.name() == w))
            .collect();
        Config {
            quick,
            shapes,
            kinds,
            flavors,
        }
    }
}

/// One measured row.
pub struct Row {
    flavor: Flavor,
    shape: String,
    kind: Kind,
    /// Round trips per side.
    ops: usize,
    /// Per side: CPU, wall over all rounds.
    odm: (Duration, Duration),
    driver: (Duration, Duration),
    /// odm / driver CPU of each round, sorted.
    rounds: Vec<f64>,
    /// The commands one round trip sends (each side alike).
    commands: String,
}

/// Which sides are timed (`ODM_CPU_ONLY`).
pub fn timed_sides() -> (bool, bool) {
    match std::env::var("ODM_CPU_ONLY").as_deref() {
        Ok("odm") => (true, false),
        Ok("driver") => (false, true),
        Ok("none") => (false, false),
        _ => (true, true),
    }
}

/// Runs the rows of `config` and prints them.
pub fn run(config: &Config) {
    let mut rows = Vec::new();
    for &flavor in &config.flavors {
        let rt = flavor.runtime();
        rt.block_on(async {
            let t = TestDb::new().await;
            let drv = t.client.database(&format!("{}_drv", t.db.name()));
            let (monitored, recorder) = verify::monitored().await;
            let dbs = Dbs {
                odm: t.db.clone(),
                drv: drv.clone(),
                checked_odm: monitored.database(t.db.name()),
                checked_drv: monitored.database(drv.name()),
                recorder,
            };
            for shape in &config.shapes {
                let (docs, one, many) = sizes(shape, config.quick);
                let mut rng = Rng::new(0x0D0D_C9E0);
                let pool: Arc<Vec<Comment>> =
                    Arc::new((0..16).map(|i| comment(&mut rng, i)).collect());
                let plan = Plan {
                    one,
                    many,
                    pool,
                    flavor,
                    shape: shape.clone(),
                    checks: if config.quick { 1 } else { 2 },
                    quick: config.quick,
                    docs,
                };
                let made = match shape.as_str() {
                    "S" => {
                        shape_rows(
                            &dbs,
                            &plan,
                            &config.kinds,
                            (0..docs).map(|_| small(&mut rng)),
                        )
                        .await
                    }
                    "M" | "L" => {
                        let comments = if shape == "M" { 50 } else { 2000 };
                        let values: Vec<Article> =
                            (0..docs).map(|_| article(&mut rng, comments)).collect();
                        shape_rows(&dbs, &plan, &config.kinds, values).await
                    }
                    other => panic!("unknown shape {other:?} (S, M or L)"),
                };
                rows.extend(made);
            }
            drv.drop().await.unwrap();
            monitored.shutdown().await;
            t.finish().await;
        });
    }
    report(&rows);
}

/// The databases of both sides, as timed and as monitored.
struct Dbs {
    odm: Database,
    drv: Database,
    checked_odm: Database,
    checked_drv: Database,
    recorder: verify::Recorder,
}

/// How much one shape runs.
pub struct Plan {
    /// (rounds, round trips per side and round) of the one-document rows.
    one: (usize, usize),
    /// The same for `bulk_save` and `find`.
    many: (usize, usize),
    pool: Arc<Vec<Comment>>,
    flavor: Flavor,
    shape: String,
    /// Round trips per side whose commands are compared.
    checks: usize,
    /// Quick mode: the pass that compares the commands is the one reported.
    quick: bool,
    /// The documents of the collection.
    docs: usize,
}

/// Documents, and (rounds, ops) of the one- and many-document rows.
fn sizes(shape: &str, quick: bool) -> (usize, (usize, usize), (usize, usize)) {
    let env = crate::common::env_usize;
    let large = shape == "L";
    let docs = env(
        "ODM_CPU_DOCS",
        match (quick, large) {
            (true, true) => 2,
            (true, false) => 4,
            (false, true) => 100,
            (false, false) => 1000,
        },
    );
    let (one, many) = match (quick, large) {
        (true, _) => ((1, 1), (1, 1)),
        (false, true) => ((5, 4), (3, 1)),
        (false, false) => ((10, 20), (5, 1)),
    };
    let rounds = |d| env("ODM_CPU_ROUNDS", d);
    let ops = |d| env("ODM_CPU_OPS", d);
    (
        docs,
        (rounds(one.0), ops(one.1)),
        (rounds(many.0), ops(many.1)),
    )
}

/// Stores `values` in both sides' databases, then runs every row of
/// `kinds` that the shape has.
async fn shape_rows<T: Shape>(
    dbs: &Dbs,
    plan: &Plan,
    kinds: &[Kind],
    values: impl IntoIterator<Item = T>,
) -> Vec<Row> {
    let raw: Vec<RawDocumentBuf> = values.into_iter().map(|v| stored(&v)).collect();
    let name = T::__odm_meta().collection;
    for db in [&dbs.odm, &dbs.drv] {
        let collection = db.collection::<RawDocumentBuf>(name);
        collection.delete_many(doc! {}).await.unwrap();
        collection.insert_many(&raw).await.unwrap();
    }
    let first = Bson::try_from(raw[0].get("_id").unwrap().unwrap()).unwrap();
    let has_arrays = plan.shape != "S";
    let mut rows = Vec::new();
    for &kind in kinds {
        if kind.arrays() && !has_arrays {
            continue;
        }
        // The commands, compared through the monitored client; in quick
        // mode that pass is also the one reported.
        let checked = Pass {
            odm: &dbs.checked_odm,
            drv: &dbs.checked_drv,
            recorder: Some(&dbs.recorder),
            rounds: 1,
            ops: plan.checks,
            warm_up: false,
            sides: (true, true),
        };
        let mut row = pass::run::<T>(&checked, plan, kind, &first).await;
        if !plan.quick {
            let (rounds, ops) = if kind.many() { plan.many } else { plan.one };
            let timed = Pass {
                odm: &dbs.odm,
                drv: &dbs.drv,
                recorder: None,
                rounds,
                ops,
                warm_up: true,
                sides: timed_sides(),
            };
            let commands = row.commands;
            row = pass::run::<T>(&timed, plan, kind, &first).await;
            row.commands = commands;
        }
        if timed_sides() == (true, true) {
            check_stored::<T>(dbs, kind, &first).await;
        }
        rows.push(row);
    }
    rows
}

/// Both databases hold the same documents: both sides wrote the same (the
/// first document, which the saves change, whole; every document's
/// counter and version after a batch).
async fn check_stored<T: Shape>(dbs: &Dbs, kind: Kind, first: &Bson) {
    let name = T::__odm_meta().collection;
    let (filter, projection) = match kind {
        Kind::Bulk => (doc! {}, Some(doc! { "counter": 1, "__v": 1 })),
        Kind::FindById | Kind::Find => return,
        _ => (doc! { "_id": first.clone() }, None),
    };
    let read = |db: &Database| {
        let collection = db.collection::<BsonDocument>(name);
        let (filter, projection) = (filter.clone(), projection.clone());
        async move {
            let find = collection.find(filter).sort(doc! { "_id": 1 });
            let find = match projection {
                Some(p) => find.projection(p),
                None => find,
            };
            let docs: Vec<BsonDocument> = find.await.unwrap().try_collect().await.unwrap();
            docs
        }
    };
    let stored = read(&dbs.odm).await;
    assert!(!stored.is_empty());
    assert!(
        stored == read(&dbs.drv).await,
        "both sides' documents are the same"
    );
}

fn report(rows: &[Row]) {
    let us = |d: Duration, ops: usize| d.as_secs_f64() * 1e6 / ops as f64;
    println!();
    println!(
        "| runtime | shape | round trip | odm CPU us | driver call | driver CPU us | CPU ratio \
         | per-round ratios | odm wall us | driver wall us | commands (each side) |"
    );
    println!("|---|---|---|---:|---|---:|---:|---|---:|---:|---|");
    for r in rows {
        let ratio = r.odm.0.as_secs_f64() / r.driver.0.as_secs_f64();
        let (lo, hi) = (r.rounds.first().copied(), r.rounds.last().copied());
        println!(
            "| {} | {} | {} | {:.1} | {} | {:.1} | {:.3} | {:.2}..{:.2} | {:.1} | {:.1} | {} |",
            r.flavor.name(),
            r.shape,
            r.kind.name(),
            us(r.odm.0, r.ops),
            r.kind.driver_call(),
            us(r.driver.0, r.ops),
            ratio,
            lo.unwrap_or(f64::NAN),
            hi.unwrap_or(f64::NAN),
            us(r.odm.1, r.ops),
            us(r.driver.1, r.ops),
            r.commands,
        );
    }
    for r in rows {
        let key = format!("E2E CPU {} {} {}", r.flavor.name(), r.shape, r.kind.name());
        let ns = |d: Duration| d.as_nanos() as f64 / r.ops as f64;
        println!("{key} odm_ns {:.0}", ns(r.odm.0));
        println!("{key} driver_ns {:.0}", ns(r.driver.0));
        println!(
            "{key} ratio {:.3}",
            r.odm.0.as_secs_f64() / r.driver.0.as_secs_f64()
        );
    }
}
