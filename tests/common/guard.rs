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
