//! BSON comparisons: exact equality (bits, types) and the first path
//! where two values differ.

use odm::bson::{Bson, Document as BsonDocument};

/// Exact equality: doubles by their bits (`-0.0 != 0.0`, NaN == NaN),
/// numbers never across types, document fields in any order.
pub fn same(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Double(x), Bson::Double(y)) => x.to_bits() == y.to_bits(),
        (Bson::Document(x), Bson::Document(y)) => same_doc(x, y),
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        _ => a == b,
    }
}

pub fn same_doc(a: &BsonDocument, b: &BsonDocument) -> bool {
    a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
}

pub fn same_opt(a: Option<&Bson>, b: Option<&Bson>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same(a, b),
        _ => false,
    }
}

pub type Changes = Option<(BsonDocument, BsonDocument)>;

pub fn same_changes(a: &Changes, b: &Changes) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some((f1, u1)), Some((f2, u2))) => same_doc(f1, f2) && same_doc(u1, u2),
        _ => false,
    }
}

/// The first path where `a` and `b` differ (exactly).
pub fn diff_path(a: Option<&Bson>, b: Option<&Bson>, path: &str) -> Option<String> {
    match (a, b) {
        (Some(Bson::Document(x)), Some(Bson::Document(y))) => {
            for k in x.keys().chain(y.keys()) {
                let p = join(path, k);
                if let Some(d) = diff_path(x.get(k), y.get(k), &p) {
                    return Some(d);
                }
            }
            None
        }
        (Some(Bson::Array(x)), Some(Bson::Array(y))) if x.len() == y.len() => {
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                if let Some(d) = diff_path(Some(x), Some(y), &join(path, &i.to_string())) {
                    return Some(d);
                }
            }
            None
        }
        _ if same_opt(a, b) => None,
        _ => Some(if path.is_empty() {
            "(root)".into()
        } else {
            path.into()
        }),
    }
}

pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        format!("{key:?}")
    } else {
        format!("{path}.{key:?}")
    }
}

/// A path with its array indices blanked, to group failures.
pub fn kind_path(path: &str) -> String {
    path.split('.')
        .map(|p| {
            if p.trim_matches('"').parse::<usize>().is_ok() {
                "N"
            } else {
                p
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The integer `b` holds (Int32 or Int64).
pub fn as_i64(b: Option<&Bson>) -> Option<i64> {
    match b {
        Some(Bson::Int32(i)) => Some(i64::from(*i)),
        Some(Bson::Int64(i)) => Some(*i),
        _ => None,
    }
}
