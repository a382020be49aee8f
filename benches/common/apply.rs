//! The benches' check that a row measures a correct save: the `(filter,
//! update)` of `doc.changes()`, applied to the stored document the way the
//! server applies it, must give back the in-memory value.
//!
//! Only what a save sends is supported: `$set`, `$unset`, `$inc`,
//! `$push: {$each}`, `$pullAll` and `$pull: {_id: {$in}}`, on dotted paths
//! through documents and array positions. Values are matched as MongoDB
//! compares them where it matters here (numbers by value across types and
//! signs); the filter is checked for its `_id` and version only.

use std::collections::HashSet;
use std::fmt::Debug;

use odm::bson::raw::RawDocumentBuf;
use odm::bson::{Bson, Document as BsonDocument};
use serde::de::DeserializeOwned;

/// A key equal for values MongoDB's `$pullAll` / `$in` treat as equal.
fn match_key(value: &Bson) -> String {
    match value {
        // `+ 0.0` turns -0.0 into 0.0.
        Bson::Int32(n) => format!("num {}", *n as f64 + 0.0),
        Bson::Int64(n) => format!("num {}", *n as f64 + 0.0),
        Bson::Double(n) => format!("num {}", *n + 0.0),
        other => format!("{other:?}"),
    }
}

fn keys(values: &Bson) -> HashSet<String> {
    match values {
        Bson::Array(values) => values.iter().map(match_key).collect(),
        other => panic!("expected an array of values, got {other:?}"),
    }
}

/// The value at a dotted `path`, created as an empty document where missing
/// (only ever the last step, for a `$set` of a new key).
fn slot<'a>(doc: &'a mut BsonDocument, path: &str) -> &'a mut Bson {
    let mut steps = path.split('.');
    let first = steps.next().expect("a path");
    let mut at = doc.entry(first.to_string()).or_insert(Bson::Null);
    for step in steps {
        at = match at {
            Bson::Document(d) => d.entry(step.to_string()).or_insert(Bson::Null),
            Bson::Array(a) => {
                let i: usize = step.parse().expect("an array position");
                a.get_mut(i)
                    .unwrap_or_else(|| panic!("{path}: no element {i}"))
            }
            other => panic!("{path}: cannot step into {other:?}"),
        };
    }
    at
}

fn unset(doc: &mut BsonDocument, path: &str) {
    match path.rsplit_once('.') {
        None => {
            doc.remove(path);
        }
        Some((parent, last)) => match slot(doc, parent) {
            Bson::Document(d) => {
                d.remove(last);
            }
            Bson::Array(a) => {
                let i: usize = last.parse().expect("an array position");
                a[i] = Bson::Null;
            }
            _ => {}
        },
    }
}

fn array<'a>(doc: &'a mut BsonDocument, path: &str) -> &'a mut Vec<Bson> {
    match slot(doc, path) {
        Bson::Array(a) => a,
        other => panic!("{path}: not an array: {other:?}"),
    }
}

fn body<'a>(update: &'a BsonDocument, op: &str) -> impl Iterator<Item = (&'a String, &'a Bson)> {
    update
        .get_document(op)
        .ok()
        .into_iter()
        .flat_map(|d| d.iter())
}

/// `stored` after the server applied `update` to it.
pub fn apply(stored: &BsonDocument, update: &BsonDocument) -> BsonDocument {
    const KNOWN: [&str; 6] = ["$set", "$unset", "$inc", "$push", "$pullAll", "$pull"];
    for op in update.keys() {
        assert!(KNOWN.contains(&op.as_str()), "unexpected operator {op}");
    }
    let mut doc = stored.clone();
    for (path, value) in body(update, "$set") {
        *slot(&mut doc, path) = value.clone();
    }
    for (path, _) in body(update, "$unset") {
        unset(&mut doc, path);
    }
    for (path, inc) in body(update, "$inc") {
        let by = inc.as_i32().map(i64::from).or(inc.as_i64());
        let by = by.unwrap_or_else(|| panic!("{path}: $inc by {inc:?}"));
        let at = slot(&mut doc, path);
        *at = match &*at {
            // A missing field becomes the increment.
            Bson::Null => inc.clone(),
            // int32 + int32 stays an int32 unless it overflows.
            Bson::Int32(v) => {
                let sum = i64::from(*v) + by;
                i32::try_from(sum).map_or(Bson::Int64(sum), Bson::Int32)
            }
            Bson::Int64(v) => Bson::Int64(v + by),
            v => panic!("{path}: $inc of {v:?}"),
        };
    }
    for (path, each) in body(update, "$push") {
        let Some(Bson::Array(each)) = each.as_document().and_then(|d| d.get("$each")) else {
            panic!("{path}: $push without $each: {each:?}");
        };
        array(&mut doc, path).extend(each.iter().cloned());
    }
    for (path, values) in body(update, "$pullAll") {
        let removed = keys(values);
        array(&mut doc, path).retain(|v| !removed.contains(&match_key(v)));
    }
    for (path, cond) in body(update, "$pull") {
        let ids = cond
            .as_document()
            .and_then(|c| c.get_document("_id").ok())
            .and_then(|c| c.get("$in"))
            .unwrap_or_else(|| panic!("{path}: $pull not by _id: {cond:?}"));
        let removed = keys(ids);
        array(&mut doc, path).retain(|v| {
            let id = v.as_document().and_then(|d| d.get("_id"));
            !id.is_some_and(|id| removed.contains(&match_key(id)))
        });
    }
    doc
}

/// Asserts that `changes` (a `doc.changes()`) is a correct save of
/// `current` over `stored`: its filter names the stored `_id` (and its
/// version `__v`, if any), and its update applied to `stored` loads as
/// `current`. Returns the update, for the row's own checks.
pub fn check_save<T>(
    row: &str,
    stored: &RawDocumentBuf,
    changes: Option<(BsonDocument, BsonDocument)>,
    current: &T,
) -> BsonDocument
where
    T: DeserializeOwned + PartialEq + Debug,
{
    let stored = BsonDocument::try_from(stored.as_ref()).expect("stored BSON decodes");
    let (filter, update) = changes.unwrap_or_else(|| panic!("{row}: changes() saw no change"));
    assert_eq!(filter.get("_id"), stored.get("_id"), "{row}: filter _id");
    if let Some(v) = filter.get("__v") {
        let loaded = stored.get("__v").expect("a stored version");
        assert_eq!(match_key(v), match_key(loaded), "{row}: filter version");
    }
    let after = apply(&stored, &update);
    let loaded: T = odm::bson::from_document(after).expect("the updated document loads");
    // Not assert_eq!: a failing 50,000-element value is no use printed.
    assert!(
        loaded == *current,
        "{row}: the update applied to the stored document is not the in-memory value"
    );
    update
}
