//! The removal guard a `$pullAll` save puts in its filter (save-rules.md,
//! "The removal guard"), written out by hand so tests can compare the
//! exact filter.

use odm::bson::{doc, Bson, Document};

/// The `$expr` of a filter guarding a `$pullAll` of `path`: for each
/// `(value, count)`, the stored array holds exactly `count` equal elements.
fn removal_guard(path: &str, values: &[(Bson, i32)]) -> Bson {
    let field = format!("${path}");
    let mut terms: Vec<Bson> = values
        .iter()
        .map(|(value, count)| {
            let input = doc! { "$cond": [{ "$isArray": &field }, &field, []] };
            let cond = doc! { "$eq": ["$$this", { "$literal": value.clone() }] };
            Bson::Document(doc! {
                "$eq": [{ "$size": { "$filter": { "input": input, "cond": cond } } }, count]
            })
        })
        .collect();
    if terms.len() == 1 {
        terms.pop().unwrap()
    } else {
        Bson::Document(doc! { "$and": terms })
    }
}

/// `filter` with the removal guard of `path` added.
pub fn guarded(mut filter: Document, path: &str, values: &[(Bson, i32)]) -> Document {
    filter.insert("$expr", removal_guard(path, values));
    filter
}

/// `filter` with the parent guard of each path in `parents`: a save that
/// does not check the version requires them to still be documents or
/// arrays.
pub fn with_parents(mut filter: Document, parents: &[&str]) -> Document {
    for parent in parents {
        filter.insert(*parent, doc! { "$type": ["object", "array"] });
    }
    filter
}

/// `filter` with the rewrite guard of `path`: a save that replaces or
/// removes the document or array there requires the stored value to be
/// `loaded`, what the copy loaded.
pub fn rewriting(mut filter: Document, path: &str, loaded: impl Into<Bson>) -> Document {
    filter.insert(path, doc! { "$eq": loaded.into() });
    filter
}

/// The positional guard's term for a plain element: element `i` of the
/// array at `array` (a field path without indexes) still holds `loaded`
/// (null by its type, so an absent element does not pass for it).
pub fn element_is(array: &str, i: i32, loaded: impl Into<Bson>) -> Bson {
    let element = doc! { "$arrayElemAt": [format!("${array}"), i] };
    Bson::Document(match loaded.into() {
        Bson::Null => doc! { "$eq": [{ "$type": element }, "null"] },
        loaded => doc! { "$eq": [element, loaded] },
    })
}

/// The positional guard's term for a sub-document element: element `i`
/// of the array at `array` still holds each `(field, loaded)` (its `_id`
/// first when it has one; `None`: the field is absent).
pub fn element_has(array: &str, i: i32, fields: &[(&str, Option<Bson>)]) -> Bson {
    let element = doc! { "$arrayElemAt": [format!("${array}"), i] };
    let mut checks: Vec<Bson> = fields
        .iter()
        .map(|(field, loaded)| {
            let at = format!("$$e.{field}");
            Bson::Document(match loaded {
                None => doc! { "$eq": [{ "$type": at }, "missing"] },
                Some(Bson::Null) => doc! { "$eq": [{ "$type": at }, "null"] },
                Some(loaded) => doc! { "$eq": [at, loaded.clone()] },
            })
        })
        .collect();
    let body = if checks.len() == 1 {
        checks.pop().unwrap()
    } else {
        Bson::Document(doc! { "$and": checks })
    };
    Bson::Document(doc! { "$let": { "vars": { "e": element }, "in": body } })
}

/// `filter` with the positional guard `terms` in its `$expr` (after the
/// removal guard's, if the filter has one): a save that edits array
/// elements in place requires each to still hold what the copy loaded.
pub fn in_place(mut filter: Document, terms: Vec<Bson>) -> Document {
    let mut all = match filter.remove("$expr") {
        None => Vec::new(),
        Some(Bson::Document(d)) if d.len() == 1 && d.contains_key("$and") => {
            d.get_array("$and").unwrap().clone()
        }
        Some(other) => vec![other],
    };
    all.extend(terms);
    if all.is_empty() {
        return filter;
    }
    let expr = if all.len() == 1 {
        all.pop().unwrap()
    } else {
        Bson::Document(doc! { "$and": all })
    };
    filter.insert("$expr", expr);
    filter
}
