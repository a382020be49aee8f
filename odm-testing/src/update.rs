//! The one update interpreter of the tests and benchmarks: an update
//! document (`$set`, `$unset`, `$inc`, `$push`, `$pullAll`, `$pull`, the
//! operators odm's saves send) applied to a document in memory as MongoDB
//! applies it, so a test or a benchmark can check that the update a save
//! sends turns the stored document into the in-memory value.
//!
//! Paths are dotted, through documents and array positions; a `$set` or an
//! `$inc` creates what is missing on its way. Values are matched as MongoDB
//! compares them in queries, `$pull` and `$pullAll` ([`mongo_eq`]). An
//! operator or modifier it does not know is an error, never ignored.

use mongodb::bson::{Bson, Document};

/// A number's value: its integer (for Int32 and Int64) and its double.
fn number(b: &Bson) -> Option<(Option<i64>, f64)> {
    match b {
        Bson::Int32(i) => Some((Some(i64::from(*i)), f64::from(*i))),
        Bson::Int64(i) => Some((Some(*i), *i as f64)),
        Bson::Double(f) => Some((None, *f)),
        _ => None,
    }
}

/// Equality as MongoDB compares values in queries and `$pullAll`: numbers
/// by value across types and signs (NaN equals NaN), document fields in
/// order.
pub fn mongo_eq(a: &Bson, b: &Bson) -> bool {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return match (x, y) {
            ((Some(i), _), (Some(j), _)) => i == j,
            ((_, f), (_, g)) => f == g || (f.is_nan() && g.is_nan()),
        };
    }
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && mongo_eq(v1, v2))
        }
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| mongo_eq(x, y))
        }
        _ => a == b,
    }
}

/// The value at `parts` under `cur`; with `create`, what is missing on the
/// way is created (documents, and `Null` for the last part).
fn slot<'a>(
    cur: &'a mut Bson,
    parts: &[&str],
    create: bool,
) -> Result<Option<&'a mut Bson>, String> {
    let Some((first, rest)) = parts.split_first() else {
        return Ok(Some(cur));
    };
    match cur {
        Bson::Document(d) => {
            if !d.contains_key(*first) {
                if !create {
                    return Ok(None);
                }
                let fresh = if rest.is_empty() {
                    Bson::Null
                } else {
                    Bson::Document(Document::new())
                };
                d.insert(*first, fresh);
            }
            slot(d.get_mut(*first).expect("inserted"), rest, create)
        }
        Bson::Array(a) => {
            let i: usize = first
                .parse()
                .map_err(|_| format!("cannot use the part {first:?} to traverse an array"))?;
            if i >= a.len() {
                if !create {
                    return Ok(None);
                }
                a.resize(i + 1, Bson::Null);
                if !rest.is_empty() {
                    a[i] = Bson::Document(Document::new());
                }
            }
            slot(&mut a[i], rest, create)
        }
        other => Err(format!("cannot create field {first:?} in element {other}")),
    }
}

fn target<'a>(
    root: &'a mut Bson,
    path: &str,
    create: bool,
) -> Result<Option<&'a mut Bson>, String> {
    let parts: Vec<&str> = path.split('.').collect();
    slot(root, &parts, create)
}

fn array_at<'a>(
    root: &'a mut Bson,
    path: &str,
    create: bool,
) -> Result<Option<&'a mut Vec<Bson>>, String> {
    match target(root, path, create)? {
        None => Ok(None),
        Some(b) => {
            if create && matches!(b, Bson::Null) {
                *b = Bson::Array(Vec::new());
            }
            match b {
                Bson::Array(a) => Ok(Some(a)),
                other => Err(format!("{path} is not an array: {other}")),
            }
        }
    }
}

/// Does the `$pull` condition `cond` match `elem`?
fn pull_matches(elem: &Bson, cond: &Bson) -> Result<bool, String> {
    let Bson::Document(c) = cond else {
        return Ok(mongo_eq(elem, cond));
    };
    if c.keys().any(|k| k.starts_with('$')) {
        return field_matches(Some(elem), c);
    }
    let Bson::Document(e) = elem else {
        return Ok(false);
    };
    for (field, want) in c {
        let ok = match want {
            Bson::Document(ops) if ops.keys().any(|k| k.starts_with('$')) => {
                field_matches(e.get(field), ops)?
            }
            want => e.get(field).is_some_and(|v| mongo_eq(v, want)),
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

fn field_matches(value: Option<&Bson>, ops: &Document) -> Result<bool, String> {
    for (op, arg) in ops {
        let ok = match op.as_str() {
            "$in" => {
                let list = arg.as_array().ok_or("$in needs an array")?;
                value.is_some_and(|v| list.iter().any(|x| mongo_eq(v, x)))
            }
            "$eq" => value.is_some_and(|v| mongo_eq(v, arg)),
            other => return Err(format!("the interpreter does not know {other} in $pull")),
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `cur + by` as `$inc` computes it: int32 stays int32 unless it
/// overflows, a missing field becomes `by`.
fn inc(cur: Option<&Bson>, by: &Bson) -> Result<Bson, String> {
    Ok(match (cur, by) {
        (None | Some(Bson::Null), by) => by.clone(),
        (Some(Bson::Int32(a)), Bson::Int32(b)) => match a.checked_add(*b) {
            Some(x) => Bson::Int32(x),
            None => Bson::Int64(i64::from(*a) + i64::from(*b)),
        },
        (Some(Bson::Int32(a)), Bson::Int64(b)) => Bson::Int64(i64::from(*a) + b),
        (Some(Bson::Int64(a)), Bson::Int32(b)) => Bson::Int64(a + i64::from(*b)),
        (Some(Bson::Int64(a)), Bson::Int64(b)) => Bson::Int64(a + b),
        (Some(a), b) => match (number(a), number(b)) {
            (Some((_, x)), Some((_, y))) => Bson::Double(x + y),
            _ => return Err(format!("cannot $inc {a} by {b}")),
        },
    })
}

/// `update` applied to `doc` as MongoDB would; an error for an operator or
/// a modifier the interpreter does not know, or an update MongoDB refuses
/// (a path through a scalar, `$push` to a non-array).
pub fn apply(doc: &Document, update: &Document) -> Result<Document, String> {
    let mut root = Bson::Document(doc.clone());
    for (op, spec) in update {
        let spec = spec
            .as_document()
            .ok_or_else(|| format!("{op} takes a document"))?;
        for (path, val) in spec {
            match op.as_str() {
                "$set" => {
                    let slot = target(&mut root, path, true)?.expect("created");
                    *slot = val.clone();
                }
                "$unset" => {
                    let parts: Vec<&str> = path.split('.').collect();
                    let (last, parent) = parts.split_last().expect("a path");
                    match slot(&mut root, parent, false)? {
                        Some(Bson::Document(d)) => {
                            d.remove(*last);
                        }
                        Some(Bson::Array(a)) => {
                            if let Some(x) = last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                                *x = Bson::Null;
                            }
                        }
                        _ => {}
                    }
                }
                "$inc" => {
                    let slot = target(&mut root, path, true)?.expect("created");
                    let cur = (!matches!(slot, Bson::Null)).then(|| slot.clone());
                    *slot = inc(cur.as_ref(), val)?;
                }
                "$push" => {
                    let items = match val {
                        Bson::Document(d) if d.keys().any(|k| k.starts_with('$')) => {
                            match (d.len(), d.get("$each")) {
                                (1, Some(Bson::Array(each))) => each.clone(),
                                _ => {
                                    return Err(format!(
                                        "$push modifiers the interpreter does not know: {d}"
                                    ))
                                }
                            }
                        }
                        v => vec![v.clone()],
                    };
                    array_at(&mut root, path, true)?
                        .expect("created")
                        .extend(items);
                }
                "$pullAll" => {
                    let values = val.as_array().ok_or("$pullAll takes an array")?;
                    if let Some(a) = array_at(&mut root, path, false)? {
                        a.retain(|x| !values.iter().any(|v| mongo_eq(x, v)));
                    }
                }
                "$pull" => {
                    if let Some(a) = array_at(&mut root, path, false)? {
                        let mut kept = Vec::with_capacity(a.len());
                        for x in a.drain(..) {
                            if !pull_matches(&x, val)? {
                                kept.push(x);
                            }
                        }
                        *a = kept;
                    }
                }
                other => return Err(format!("the interpreter does not know {other}")),
            }
        }
    }
    match root {
        Bson::Document(d) => Ok(d),
        _ => unreachable!("the root stays a document"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::doc;

    #[test]
    fn a_save_update_lands_as_the_server_applies_it() {
        let stored = doc! {
            "_id": 1, "n": 1, "gone": true, "tags": ["a", "b", "c"],
            "items": [{ "_id": 1 }, { "_id": 2 }], "__v": 0,
        };
        let update = doc! {
            "$set": { "meta.city": "Oslo", "tags.0": "z" },
            "$unset": { "gone": "" },
            "$inc": { "n": 2, "__v": 1 },
            "$push": { "tags": { "$each": ["d"] } },
            "$pull": { "items": { "_id": { "$in": [2.0] } } },
        };
        assert_eq!(
            apply(&stored, &update).unwrap(),
            doc! {
                "_id": 1, "n": 3, "tags": ["z", "b", "c", "d"],
                "items": [{ "_id": 1 }], "__v": 1, "meta": { "city": "Oslo" },
            }
        );
    }

    #[test]
    fn what_it_does_not_know_is_an_error() {
        let d = doc! { "a": [1] };
        assert!(apply(&d, &doc! { "$rename": { "a": "b" } }).is_err());
        assert!(apply(
            &d,
            &doc! { "$push": { "a": { "$each": [2], "$slice": 1 } } }
        )
        .is_err());
        assert!(apply(&d, &doc! { "$set": { "a.x": 1 } }).is_err());
    }

    #[test]
    fn numbers_compare_by_value_across_types_and_signs() {
        assert!(mongo_eq(&Bson::Int32(1), &Bson::Double(1.0)));
        assert!(mongo_eq(&Bson::Double(-0.0), &Bson::Int64(0)));
        assert!(mongo_eq(&Bson::Double(f64::NAN), &Bson::Double(f64::NAN)));
        assert!(!mongo_eq(&Bson::Int32(1), &Bson::String("1".into())));
    }
}
