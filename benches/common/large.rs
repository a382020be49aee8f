//! Growth rows of the `shapes` bench: large maps and arrays, each measured
//! at N and 4N elements so the ratio of the two shows how `changes()` grows
//! (~4 when linear, ~16 when quadratic).
//!
//! Each row loads a document of the given size, takes its snapshot, makes
//! one mutation, checks that the resulting `(filter, update)` is a correct
//! save of it (see `apply::check_save`) plus the row's own expectations,
//! then times `doc.changes()` on it, as `delta_scalar` does.

use std::collections::HashMap;
use std::hint::black_box;

use odm::bson::raw::RawDocumentBuf;
use odm::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::apply::check_save;
use super::harness::{measure, Growth, Plan, Row};
use super::{comment, stored, Comment, Rng};

/// A document with one large map and two large arrays; each row fills
/// only the field it measures. Default versioning (no
/// `optimistic_concurrency`), so array changes carry their own version
/// effects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bench_large")]
pub struct Large {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub counters: HashMap<String, i32>,
    pub values: Vec<i64>,
    pub comments: Vec<Comment>,
}

/// The rows and their N, full size or quick.
pub fn growth(quick: bool) -> Vec<Growth> {
    // Quick mode: N a 25th, so quadratic code still takes milliseconds.
    let n = |full: usize| if quick { full / 25 } else { full };
    let row = |row, unit, full| Growth {
        row,
        unit,
        n: n(full),
    };
    vec![
        row("map_one_change", "keys", 5_000),
        row("map_rehashed", "keys", 5_000),
        row("array_half_removed", "elements", 12_500),
        row("array_all_edited", "elements", 6_250),
        row("subdocs_all_edited", "sub-documents", 6_250),
    ]
}

fn key(i: usize) -> String {
    format!("key{i:06}")
}

/// A loaded `Large` with `fill` applied, and its stored form.
fn load(model: &Model<Large>, fill: impl FnOnce(&mut Large)) -> (Doc<Large>, RawDocumentBuf) {
    let mut value = Large {
        id: ObjectId::from_bytes([7; 12]),
        counters: HashMap::new(),
        values: Vec::new(),
        comments: Vec::new(),
    };
    fill(&mut value);
    let raw = stored(&value);
    (model.hydrate(&raw).expect("loads"), raw)
}

fn counters(n: usize) -> impl FnOnce(&mut Large) {
    move |v| v.counters = (0..n).map(|i| (key(i), i as i32)).collect()
}

fn values(n: usize) -> impl FnOnce(&mut Large) {
    move |v| v.values = (0..n as i64).map(|i| i * 3).collect()
}

fn set_body<'a>(row: &str, update: &'a BsonDocument) -> &'a BsonDocument {
    update
        .get_document("$set")
        .unwrap_or_else(|_| panic!("{row}: no $set in {update:?}"))
}

/// The loaded document of row `row` at size `n`, mutated and checked.
fn prepare(model: &Model<Large>, row: &str, n: usize) -> Doc<Large> {
    match row {
        // One value of the map changed: a `$set` of that key alone.
        "map_one_change" => {
            let (mut doc, raw) = load(model, counters(n));
            let k = key(n / 2);
            *doc.counters.get_mut(&k).expect("the key") += 1;
            let update = check_save(row, &raw, doc.changes(), &*doc);
            let path = format!("counters.{k}");
            assert_eq!(update, doc! { "$set": { path: (n / 2) as i32 + 1 } });
            doc
        }
        // New keys inserted until the map grew, which rehashed it: the
        // serialized order of the old keys changed, their values did not.
        "map_rehashed" => {
            let (mut doc, raw) = load(model, counters(n));
            let capacity = doc.counters.capacity();
            let order: Vec<String> = doc.counters.keys().cloned().collect();
            let mut added = 0;
            while doc.counters.capacity() == capacity {
                doc.counters.insert(format!("new{added:06}"), -1);
                added += 1;
            }
            let old_keys = doc.counters.keys().filter(|k| k.starts_with("key"));
            assert!(
                !old_keys.eq(order.iter()),
                "{row}: the inserts did not change the iteration order"
            );
            let update = check_save(row, &raw, doc.changes(), &*doc);
            let set = set_body(row, &update);
            assert_eq!(update.len(), 1, "{row}: only a $set");
            assert_eq!(set.len(), added, "{row}: a $set of each new key");
            assert!(set.keys().all(|k| k.starts_with("counters.new")));
            doc
        }
        // Every other element removed: a `$pullAll` of those, or (save-rules.md
        // allows both; a guard of thousands of values costs the server more)
        // a `$set` of the whole array; either bumps the version.
        "array_half_removed" => {
            let (mut doc, raw) = load(model, values(n));
            let mut i = 0;
            doc.values.retain(|_| {
                i += 1;
                i % 2 == 0
            });
            let update = check_save(row, &raw, doc.changes(), &*doc);
            let only_values = |op| {
                let body = update.get_document(op);
                body.is_ok_and(|b| b.keys().eq(["values"]))
            };
            assert!(
                update.len() == 2 && (only_values("$pullAll") || only_values("$set")),
                "{row}: a $pullAll or a $set of the array, and $inc"
            );
            assert_eq!(update.get("$inc"), Some(&Bson::from(doc! { "__v": 1 })));
            doc
        }
        // Every element given a value no element had: positional `$set`s,
        // or one `$set` of the array (an assignment).
        "array_all_edited" => {
            let (mut doc, raw) = load(model, values(n));
            for v in doc.values.iter_mut() {
                *v = -*v - 1;
            }
            let update = check_save(row, &raw, doc.changes(), &*doc);
            let set = set_body(row, &update);
            assert!(set
                .keys()
                .all(|k| k == "values" || k.starts_with("values.")));
            doc
        }
        // Every sub-document edited in place, keeping its `_id`: one
        // positional `$set` each.
        "subdocs_all_edited" => {
            let mut rng = Rng::new(0x0D0D_6A0E);
            let (mut doc, raw) = load(model, |v| {
                v.comments = (0..n).map(|i| comment(&mut rng, i)).collect();
            });
            for c in doc.comments.iter_mut() {
                c.likes += 1;
            }
            let update = check_save(row, &raw, doc.changes(), &*doc);
            let set = set_body(row, &update);
            assert_eq!(set.len(), n, "{row}: one positional $set per element");
            assert!(set.keys().all(|k| k.ends_with(".likes")));
            doc
        }
        other => panic!("no growth row {other}"),
    }
}

/// Measures every growth row at N and 4N.
pub fn bench_growth(plan: &Plan, out: &mut Vec<Row>, model: &Model<Large>) {
    for g in growth(plan.quick) {
        for (shape, n) in [("N", g.n), ("4N", 4 * g.n)] {
            if !plan.wants(&format!("{shape} {}", g.row)) {
                continue;
            }
            let doc = prepare(model, g.row, n);
            measure(plan, out, shape, g.row, |_| {
                black_box(black_box(&doc).changes());
            });
        }
    }
}
