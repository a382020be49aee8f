//! Schema versions (issue 31): what a lazy upgrade costs on load, in
//! process, and `migrate_all`'s throughput end to end against a `bulk_save`
//! of the same documents.
//!
//! CPU rows (no server; the `shapes` harness: median CPU time of the bench
//! thread per op), on S and M of `benches/SHAPES.md`, for a model at
//! schema version 1 whose one step renames a field (`mail` -> `email`):
//! - `load_unversioned`: `hydrate` of the stored document by the same
//!   model without `schema_version` (the plain load of the `shapes` bench);
//! - `load_current`: `hydrate` by the versioned model of a document stored
//!   at version 1 (nothing to upgrade: the schema key read and hidden);
//! - `load_upgrade`: `hydrate` of the same document stored at version 0:
//!   upgraded in memory (to a `bson::Document`, the step, back to bytes),
//!   then decoded;
//! - `upgrade_changes`: `load_upgrade`, then `changes()`: the `(filter,
//!   update)` of the upgrade's save.
//!
//! End to end (`MIGRATE` rows, against the local server or `MONGODB_URI`):
//! N S documents stored at version 0 (5,000; quick mode 200), upgraded by
//! `migrate_all().batch_size(500)`, against the hand-written equivalent
//! over the same documents: batches of 500 read with `find` (which
//! upgrades them in memory) and saved with `bulk_save`; and `bulk_save`
//! alone (the same batches, the `find`s not timed). Each side runs on a
//! fresh copy of the documents, `ODM_MIGRATE_ROUNDS` rounds (default 3;
//! quick 1), medians reported. Prints `SCHEMA ROW NS` per CPU row and
//! `MIGRATE ROW NS_PER_DOC`, `MIGRATE ratio_* X` lines.

mod common;

use std::future::IntoFuture;
use std::hint::black_box;
use std::time::{Duration, Instant};

use common::harness::{measure, median, print, Plan, Row};
use common::{article, small, stored, Article, Rng, Small};
use odm::bson::raw::RawDocumentBuf;
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

/// The one step of both versioned models: `mail` renamed to `email`.
fn rename_mail(doc: &mut BsonDocument, from: u32) -> Result<(), MigrationError> {
    match from {
        0 => {
            let mail = doc.remove("mail").ok_or(MigrationError::new("no `mail`"))?;
            doc.insert("email", mail);
            Ok(())
        }
        _ => Err(MigrationError::new("no such step")),
    }
}

/// S at schema version 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bench_sv_s", optimistic_concurrency, schema_version = 1, migrate = rename_mail)]
#[serde(rename_all = "camelCase")]
pub struct SmallV {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
    pub email: String,
    pub city: String,
    pub status: String,
    pub age: i32,
    pub score: f64,
    pub counter: i32,
    pub active: bool,
    pub verified: bool,
    pub created_at: odm::bson::DateTime,
}

common::article_model!(
    /// M at schema version 1: `Article`'s fields, from the same list (a
    /// wrapper flattening `Article` would decode by another path than the
    /// plain load it is compared with).
    ArticleV,
    "bench_sv_m",
    schema_version = 1,
    migrate = rename_mail
);

/// `value` stored at schema version 1 (`__sv: 1`), and at version 0
/// (`mail` in place of `email`, no `__sv`).
fn both_versions<T: Serialize>(value: &T) -> (RawDocumentBuf, RawDocumentBuf) {
    let plain = stored(value);
    let mut current = plain.clone();
    current.append("__sv", 1i32);
    let mut older = RawDocumentBuf::new();
    for element in &plain {
        let (key, v) = element.unwrap();
        // A `&str` with bson 2, a `&CStr` with bson 3.
        #[allow(clippy::useless_asref)]
        let key: &str = key.as_ref();
        older.append(if key == "email" { "mail" } else { key }, v.to_raw_bson());
    }
    (current, older)
}

/// The four CPU rows of one shape.
fn cpu_rows<P, V>(
    plan: &Plan,
    out: &mut Vec<Row>,
    shape: &'static str,
    value: &P,
    db: &mongodb::Database,
) where
    P: odm::Document + Serialize,
    V: odm::Document,
{
    let plain_model = Model::<P>::new(db);
    let model = Model::<V>::new(db);
    let raw = stored(value);
    let (current, older) = both_versions(value);
    // The checks: each loads, the older one upgraded, its save the rename.
    assert!(plain_model.hydrate(&raw).unwrap().changes().is_none());
    let at = model.hydrate(&current).unwrap();
    assert_eq!((at.migrated_from(), at.changes()), (None, None));
    let up = model.hydrate(&older).unwrap();
    assert_eq!(up.migrated_from(), Some(0));
    let (_, update) = up.changes().expect("the upgrade's save");
    let set = update.get_document("$set").unwrap();
    assert_eq!(set.get("__sv"), Some(&Bson::Int32(1)));
    assert!(
        set.contains_key("email") && update.get_document("$unset").unwrap().contains_key("mail")
    );
    assert_eq!(
        odm::bson::to_document(&*up).unwrap(),
        odm::bson::to_document(&*at).unwrap()
    );
    measure(plan, out, shape, "load_unversioned", |_| {
        black_box(plain_model.hydrate(black_box(&raw)).unwrap());
    });
    measure(plan, out, shape, "load_current", |_| {
        black_box(model.hydrate(black_box(&current)).unwrap());
    });
    measure(plan, out, shape, "load_upgrade", |_| {
        black_box(model.hydrate(black_box(&older)).unwrap());
    });
    measure(plan, out, shape, "upgrade_changes", |_| {
        let doc = model.hydrate(black_box(&older)).unwrap();
        black_box(doc.changes().unwrap());
    });
}

/// N S documents stored at version 0, in a fresh collection.
async fn reset(model: &Model<SmallV>, older: &[RawDocumentBuf]) {
    model.collection().drop().await.unwrap();
    let raw = model.collection().clone_with_type::<RawDocumentBuf>();
    for chunk in older.chunks(1_000) {
        raw.insert_many(chunk).await.unwrap();
    }
}

/// Every document of `model` at version 1, each written once.
async fn check_upgraded(model: &Model<SmallV>, n: usize) {
    let at = model
        .count(doc! { "__sv": 1, "__v": 1, "mail": { "$exists": false } })
        .await
        .unwrap();
    assert_eq!(at, n as u64, "every document upgraded once");
}

const BATCH: usize = 500;

/// The hand-written migration: batches read with `find` (upgraded on load)
/// and saved with `bulk_save`; returns the time of the `bulk_save`s alone.
async fn by_hand(model: &Model<SmallV>) -> Duration {
    let mut saving = Duration::ZERO;
    let older = doc! { "__sv": { "$exists": false } };
    loop {
        let mut docs = model
            .find(older.clone())
            .sort(doc! { "_id": 1 })
            .limit(BATCH as i64)
            .await
            .unwrap();
        if docs.is_empty() {
            return saving;
        }
        let start = Instant::now();
        let outcomes = model.bulk_save(&mut docs).await.unwrap();
        saving += start.elapsed();
        assert!(outcomes.iter().all(Result::is_ok));
    }
}

fn end_to_end(plan: &Plan) {
    let n = if plan.quick {
        200
    } else {
        common::env_usize("ODM_MIGRATE_DOCS", 5_000)
    };
    let rounds = if plan.quick {
        1
    } else {
        common::env_usize("ODM_MIGRATE_ROUNDS", 3)
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let t = rt.block_on(TestDb::new());
    let model = Model::<SmallV>::new(&t.db);
    let mut rng = Rng::new(31);
    let older: Vec<RawDocumentBuf> = (0..n).map(|_| both_versions(&small(&mut rng)).1).collect();
    let (mut migrate, mut hand, mut bulk) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        rt.block_on(async {
            reset(&model, &older).await;
            let start = Instant::now();
            let report = model.migrate_all().batch_size(BATCH).await.unwrap();
            migrate.push(start.elapsed().as_nanos() as f64 / n as f64);
            assert_eq!(report.upgraded(), n as u64);
            check_upgraded(&model, n).await;

            reset(&model, &older).await;
            let start = Instant::now();
            let saving = by_hand(&model).await;
            hand.push(start.elapsed().as_nanos() as f64 / n as f64);
            bulk.push(saving.as_nanos() as f64 / n as f64);
            check_upgraded(&model, n).await;
        });
    }
    for v in [&mut migrate, &mut hand, &mut bulk] {
        v.sort_by(f64::total_cmp);
    }
    let (m, h, b) = (median(&migrate), median(&hand), median(&bulk));
    println!();
    println!(
        "| {n} S documents at version 0, batches of {BATCH} | wall ns/doc (median of {rounds}) |"
    );
    println!("|---|---:|");
    println!("| migrate_all | {m:.0} |");
    println!("| find + bulk_save | {h:.0} |");
    println!("| bulk_save alone | {b:.0} |");
    println!("MIGRATE migrate_all {m:.0}");
    println!("MIGRATE find_bulk_save {h:.0}");
    println!("MIGRATE bulk_save {b:.0}");
    println!("MIGRATE ratio_find_bulk_save {:.2}", m / h);
    println!("MIGRATE ratio_bulk_save {:.2}", m / b);
    rt.block_on(t.finish());
}

fn main() {
    let plan = Plan::from_env();
    let client_rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // A handle only: no command is sent by the CPU rows.
    let client = client_rt
        .block_on(mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/"))
        .unwrap();
    let db = client.database("bench");
    let mut rng = Rng::new(31);
    let mut out = Vec::new();
    let s = small(&mut rng);
    cpu_rows::<Small, SmallV>(&plan, &mut out, "S", &s, &db);
    let m: Article = article(&mut rng, 50);
    cpu_rows::<Article, ArticleV>(&plan, &mut out, "M", &m, &db);
    let sizes = [
        ("S", stored(&s).as_bytes().len()),
        ("M", stored(&m).as_bytes().len()),
    ];
    print(&out, &sizes, &[]);
    for r in &out {
        println!("SCHEMA {} {} {:.0}", r.shape, r.row, r.ns());
    }
    for shape in ["S", "M"] {
        let find = |row: &str| {
            out.iter()
                .find(|r| r.shape == shape && r.row == row)
                .map(Row::ns)
        };
        if let (Some(plain), Some(up)) = (find("load_current"), find("load_upgrade")) {
            println!("SCHEMA {shape} ratio_upgrade_vs_current {:.2}", up / plain);
        }
    }
    client_rt.block_on(client.shutdown().into_future());
    if plan.wants("MIGRATE") {
        end_to_end(&plan);
    }
}
