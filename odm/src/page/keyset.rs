//! The pure rules of keyset paging: the full sort (the caller's keys, then
//! `_id` as the tiebreak), the key values of a document, and the filter
//! that selects what sorts strictly after them.
//!
//! MongoDB sorts a missing field as `null`, and `null` before every other
//! value; a comparison operator (`$gt`, `$lt`) matches only values of the
//! same type, never `null`. So the step after a key value depends on the
//! direction and on whether the value is `null`:
//!
//! | direction | last value | what comes after it on this key |
//! |---|---|---|
//! | ascending | `v` | `{ k: { $gt: v } }` |
//! | ascending | `null` | `{ k: { $ne: null } }` (every value) |
//! | descending | `v` | `{ k: { $lt: v } }`, or `{ k: null }` (nulls last) |
//! | descending | `null` | nothing |

use mongodb::bson::raw::{RawBsonRef, RawDocument};
use mongodb::bson::{doc, Bson, Document};

/// One key of the full sort: its path and direction (`1` or `-1`).
pub(crate) type Key = (String, i32);

/// Why a sort or a document cannot be paged by its keys.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Refusal {
    /// A sort value other than `1` / `-1` (e.g. `{ $meta: "textScore" }`).
    Direction(String),
    /// The document holds an array on (or above) this key's path.
    Array(String),
}

/// The full sort: `sort`'s keys in order, cut after `_id` if it is among
/// them (it is unique, so later keys never decide), else `_id` appended in
/// the direction of the last key (ascending when there is none).
pub(crate) fn full_sort(sort: Option<&Document>) -> Result<Vec<Key>, Refusal> {
    let mut keys = Vec::new();
    for (path, direction) in sort.into_iter().flatten() {
        let direction = match direction {
            Bson::Int32(d) => i64::from(*d),
            Bson::Int64(d) => *d,
            Bson::Double(d) if d.fract() == 0.0 => *d as i64,
            _ => return Err(Refusal::Direction(path.clone())),
        };
        let direction = match direction {
            1 => 1,
            -1 => -1,
            _ => return Err(Refusal::Direction(path.clone())),
        };
        keys.push((path.clone(), direction));
        if path == "_id" {
            return Ok(keys);
        }
    }
    let last = keys.last().map_or(1, |(_, d)| *d);
    keys.push(("_id".to_string(), last));
    Ok(keys)
}

/// The sort document of `keys`.
pub(crate) fn sort_document(keys: &[Key]) -> Document {
    let mut sort = Document::new();
    for (path, direction) in keys {
        sort.insert(path.clone(), *direction);
    }
    sort
}

/// The values of `keys` in `raw`, a missing one as `null`.
pub(crate) fn values(raw: &RawDocument, keys: &[Key]) -> Result<Vec<Bson>, Refusal> {
    keys.iter()
        .map(|(path, _)| value_at(raw, path).ok_or_else(|| Refusal::Array(path.clone())))
        .collect()
}

/// The value at the dotted `path` (`null` when missing); `None` when an
/// array is on the way or at the end.
fn value_at(raw: &RawDocument, path: &str) -> Option<Bson> {
    let mut doc = raw;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let value = match doc.get(part) {
            Ok(Some(value)) => value,
            _ => return Some(Bson::Null),
        };
        match value {
            RawBsonRef::Array(_) => return None,
            RawBsonRef::Document(inner) if parts.peek().is_some() => doc = inner,
            _ if parts.peek().is_some() => return Some(Bson::Null),
            value => {
                let value = crate::bson_release::to_raw_bson(value);
                return Bson::try_from(value).ok();
            }
        }
    }
    Some(Bson::Null)
}

/// The filter of the documents that sort strictly after `values` (one per
/// key) under `keys`.
pub(crate) fn after(keys: &[Key], values: &[Bson]) -> Document {
    let mut clauses: Vec<Document> = Vec::new();
    let mut prefix = Document::new();
    for ((path, direction), value) in keys.iter().zip(values) {
        let null = matches!(value, Bson::Null);
        let mut steps: Vec<Bson> = Vec::new();
        match (*direction, null) {
            (1, false) => steps.push(Bson::Document(doc! { "$gt": value.clone() })),
            (1, true) => steps.push(Bson::Document(doc! { "$ne": Bson::Null })),
            (_, false) => {
                steps.push(Bson::Document(doc! { "$lt": value.clone() }));
                // `_id` is never missing (nor, in practice, null).
                if path != "_id" {
                    steps.push(Bson::Null);
                }
            }
            (_, true) => {}
        }
        for step in steps {
            let mut clause = prefix.clone();
            clause.insert(path.clone(), step);
            clauses.push(clause);
        }
        prefix.insert(path.clone(), value.clone());
    }
    match clauses.len() {
        // Nothing can follow: a filter no document matches.
        0 => doc! { "_id": { "$in": [] } },
        1 => clauses.pop().unwrap_or_default(),
        _ => doc! { "$or": clauses },
    }
}

/// Adds the sort keys to an inclusion `projection`, so the last item of a
/// page has its key values: a key already covered (itself or a parent
/// listed) is left alone, and a key that is the parent of listed paths
/// replaces them (MongoDB refuses a path and its parent together).
pub(crate) fn cover(projection: &mut Document, keys: &[Key]) {
    let within = |path: &str, parent: &str| {
        path == parent
            || path
                .strip_prefix(parent)
                .is_some_and(|rest| rest.starts_with('.'))
    };
    for (path, _) in keys {
        if projection.keys().any(|listed| within(path, listed)) {
            continue;
        }
        let children: Vec<String> = projection
            .keys()
            .filter(|listed| within(listed, path))
            .cloned()
            .collect();
        for child in children {
            projection.remove(&child);
        }
        projection.insert(path.clone(), 1);
    }
}

/// `filter` and `more`, both to hold.
pub(crate) fn both(filter: Document, more: Document) -> Document {
    if filter.is_empty() {
        more
    } else {
        doc! { "$and": [filter, more] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::rawdoc;

    fn keys(pairs: &[(&str, i32)]) -> Vec<Key> {
        pairs.iter().map(|(p, d)| (p.to_string(), *d)).collect()
    }

    #[test]
    fn the_full_sort_breaks_ties_on_id_in_the_last_keys_direction() {
        assert_eq!(full_sort(None).unwrap(), keys(&[("_id", 1)]));
        let sort = doc! { "createdAt": -1 };
        assert_eq!(
            full_sort(Some(&sort)).unwrap(),
            keys(&[("createdAt", -1), ("_id", -1)])
        );
        let sort = doc! { "a": 1, "b": -1_i64 };
        assert_eq!(
            full_sort(Some(&sort)).unwrap(),
            keys(&[("a", 1), ("b", -1), ("_id", -1)])
        );
        let sort = doc! { "a": 1, "_id": -1, "b": 1 };
        assert_eq!(
            full_sort(Some(&sort)).unwrap(),
            keys(&[("a", 1), ("_id", -1)])
        );
    }

    #[test]
    fn a_sort_that_is_not_a_direction_is_refused() {
        let sort = doc! { "score": { "$meta": "textScore" } };
        assert_eq!(
            full_sort(Some(&sort)),
            Err(Refusal::Direction("score".into()))
        );
        let sort = doc! { "a": 2 };
        assert_eq!(full_sort(Some(&sort)), Err(Refusal::Direction("a".into())));
    }

    #[test]
    fn values_follow_dotted_paths_and_read_missing_as_null() {
        let raw = rawdoc! { "_id": 7, "meta": { "visits": 3 }, "name": "x" };
        let k = keys(&[
            ("meta.visits", 1),
            ("gone", 1),
            ("name.first", 1),
            ("_id", 1),
        ]);
        assert_eq!(
            values(&raw, &k).unwrap(),
            vec![Bson::Int32(3), Bson::Null, Bson::Null, Bson::Int32(7)]
        );
        let raw = rawdoc! { "_id": 7, "tags": ["a"], "meta": [{ "v": 1 }] };
        let k = keys(&[("tags", 1), ("_id", 1)]);
        assert_eq!(values(&raw, &k), Err(Refusal::Array("tags".into())));
        let k = keys(&[("meta.v", 1), ("_id", 1)]);
        assert_eq!(values(&raw, &k), Err(Refusal::Array("meta.v".into())));
    }

    #[test]
    fn after_one_key_is_a_comparison_on_id() {
        assert_eq!(
            after(&keys(&[("_id", 1)]), &[Bson::Int32(5)]),
            doc! { "_id": { "$gt": 5 } }
        );
        assert_eq!(
            after(&keys(&[("_id", -1)]), &[Bson::Int32(5)]),
            doc! { "_id": { "$lt": 5 } }
        );
    }

    #[test]
    fn after_two_keys_ties_fall_to_the_second() {
        let k = keys(&[("at", 1), ("_id", 1)]);
        assert_eq!(
            after(&k, &[Bson::Int32(10), Bson::Int32(3)]),
            doc! { "$or": [
                { "at": { "$gt": 10 } },
                { "at": 10, "_id": { "$gt": 3 } },
            ] }
        );
        let k = keys(&[("at", -1), ("_id", -1)]);
        assert_eq!(
            after(&k, &[Bson::Int32(10), Bson::Int32(3)]),
            doc! { "$or": [
                { "at": { "$lt": 10 } },
                { "at": null },
                { "at": 10, "_id": { "$lt": 3 } },
            ] }
        );
    }

    #[test]
    fn after_a_null_key_value() {
        let k = keys(&[("at", 1), ("_id", 1)]);
        assert_eq!(
            after(&k, &[Bson::Null, Bson::Int32(3)]),
            doc! { "$or": [
                { "at": { "$ne": null } },
                { "at": null, "_id": { "$gt": 3 } },
            ] }
        );
        let k = keys(&[("at", -1), ("_id", -1)]);
        assert_eq!(
            after(&k, &[Bson::Null, Bson::Int32(3)]),
            doc! { "at": null, "_id": { "$lt": 3 } }
        );
    }

    #[test]
    fn cover_adds_the_keys_a_projection_lacks() {
        let mut p = doc! { "name": 1, "meta.city": 1, "profile": 1 };
        let k = keys(&[("meta", 1), ("profile.age", -1), ("at", 1), ("_id", 1)]);
        cover(&mut p, &k);
        assert_eq!(
            p,
            doc! { "name": 1, "profile": 1, "meta": 1, "at": 1, "_id": 1 }
        );
        let mut p = doc! { "name": 1, "_id": 1 };
        cover(&mut p, &keys(&[("name", 1), ("_id", 1)]));
        assert_eq!(p, doc! { "name": 1, "_id": 1 });
    }

    #[test]
    fn both_keeps_the_callers_filter() {
        assert_eq!(both(doc! {}, doc! { "a": 1 }), doc! { "a": 1 });
        assert_eq!(
            both(doc! { "s": "x" }, doc! { "a": 1 }),
            doc! { "$and": [{ "s": "x" }, { "a": 1 }] }
        );
    }
}
