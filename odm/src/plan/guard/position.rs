//! The positional guard: an in-place edit of an array element must not
//! land when that element changed since this copy loaded it.
//!
//! Default mode sends an edit of element `i` as `$set: {"a.i": ..}` (or
//! `{"a.i.f": ..}` under a sub-document): checked by the version, not
//! bumping it, so two copies editing different elements both land. The
//! version does not order two changes of one element, though: another
//! copy's change that the diff also reads as an in-place edit (a pop and a
//! push, an assignment that ends one element different, a plain edit)
//! leaves the version as it was, and a stale copy's edit of the same
//! element would land on top of it. So the filter of such a write also
//! requires the element to still hold what this copy loaded: the value at
//! the written path, and, for a sub-document with an `_id`, that `_id` (a
//! writer that replaced the sub-document in place, as Mongoose does
//! without a bump, moved the edit's target). Any change of it since (by
//! odm, by Mongoose, by anyone) makes the write match nothing, and the
//! save fails with `Error::Version`.
//!
//! The term is an aggregation expression in the filter's `$expr`, one per
//! element, reading the element by position (`$arrayElemAt`) and comparing
//! with `$eq`: exactly the value at that position, where the query form
//! `{"a.i": v}` is not (it also matches when the element is an array
//! holding `v`, or when a sub-document of `a` has a field named `i`, and
//! `{"a.i": null}` matches an array of sub-documents lacking a field `i`).
//! Equality is the server's: numbers by value across types, a NaN equals a
//! NaN, documents field by field in order (the loaded bytes keep the
//! stored order). Null and absent are told apart by `$type`. `$let` (not
//! `$getField`) reads a field of an element, so MongoDB 4.4 evaluates it.
//!
//! A value that is a document or an array is the rewrite guard's
//! ([`rewrite`](super::rewrite)): only its element's `_id` is required
//! here. The loaded values are the stored bytes as this copy read them, as
//! for the rewrite guard.

use std::collections::HashMap;

use mongodb::bson::raw::RawDocument;
use mongodb::bson::{doc, Bson};

use super::loaded::Loaded;
use crate::error::Error;
use crate::plan::diff::{Change, Op};
use crate::plan::versioning::int;

/// One step from the document to a value.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// A field of a document.
    Field(String),
    /// An element of an array, by position.
    Index(usize),
}

/// What one array element must still hold for a save's writes under it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Element {
    /// The steps from the document to the element (the last is an index).
    steps: Vec<Step>,
    /// Under the element: a field path (empty: the element itself) and the
    /// value this copy loaded there (`None`: absent). A sub-document's
    /// `_id` comes first.
    values: Vec<(String, Option<Bson>)>,
}

/// The positional guards of `changes` (in `loaded`, the stored document as
/// this copy last knew it): for each change through an array element, the
/// `_id` of every sub-document element on its path, and, for a `$set` or
/// `$unset` over a value that is not a document or an array, that value.
/// Fields in `skip` (`skip_versioning`) are left out, as they are left out
/// of versioning.
pub(crate) fn guards<'c>(
    changes: impl IntoIterator<Item = &'c Change>,
    loaded: &RawDocument,
    skip: &[&str],
) -> Result<Vec<Element>, Error> {
    let mut loaded = Loaded::new(loaded);
    let mut out = Vec::new();
    let mut found = HashMap::new();
    for c in changes
        .into_iter()
        .filter(|c| c.positional && !skip.contains(&c.field()))
    {
        guard(c, &mut loaded, &mut out, &mut found)?;
    }
    out.retain(|e| !e.values.is_empty());
    Ok(out)
}

/// Adds what `change` requires to `out` (`found`: the element paths
/// already in `out`, and where).
fn guard(
    change: &Change,
    loaded: &mut Loaded<'_>,
    out: &mut Vec<Element>,
    found: &mut HashMap<String, usize>,
) -> Result<(), Error> {
    let path = change.path.as_str();
    let mut at = Some(loaded.root());
    let mut steps = Vec::new();
    // The innermost element on the way: its place in `out`, and where the
    // path under it starts.
    let mut inner = None;
    let mut end = 0;
    for part in path.split('.') {
        // A part of a value that is absent, or not a container: the path
        // leads nowhere in what this copy loaded.
        let Some(holder) = at.filter(|e| e.is_document() || e.is_array()) else {
            return Ok(());
        };
        at = loaded.child(&path[..end.max(1) - 1], holder, part)?;
        end += part.len();
        if holder.is_document() {
            steps.push(Step::Field(part.to_string()));
        } else {
            let Ok(i) = part.parse::<usize>() else {
                return Ok(());
            };
            steps.push(Step::Index(i));
            let slot = match found.get(&path[..end]) {
                Some(&slot) => slot,
                None => {
                    let id = match at.and_then(|e| e.id()) {
                        Some(id) => vec![("_id".to_string(), Some(id.decode()?))],
                        None => Vec::new(),
                    };
                    out.push(Element {
                        steps: steps.clone(),
                        values: id,
                    });
                    found.insert(path[..end].to_string(), out.len() - 1);
                    out.len() - 1
                }
            };
            inner = Some((slot, end + 1));
        }
        end += 1;
    }
    let container = at.is_some_and(|e| e.is_document() || e.is_array());
    if let (Op::Set | Op::Unset, false, Some((slot, under))) = (change.op, container, inner) {
        let sub = path.get(under..).unwrap_or("");
        let values = &mut out[slot].values;
        if !values.iter().any(|(p, _)| p == sub) {
            values.push((sub.to_string(), at.map(|e| e.decode()).transpose()?));
        }
    }
    Ok(())
}

/// The terms a save of in-place `$set`s of `paths` over `loaded` carries:
/// the guard's whole client work for that save, which the benchmarks
/// time. Not public API.
#[doc(hidden)]
pub fn edit_terms(loaded: &RawDocument, paths: &[&str]) -> crate::error::Result<Vec<Bson>> {
    let changes: Vec<Change> = paths
        .iter()
        .map(|path| Change::new(Op::Set, path.to_string(), Bson::Null, true))
        .collect();
    Ok(terms(&guards(&changes, loaded, &[])?))
}

/// The `$expr` terms of `elements`, one each.
pub(crate) fn terms(elements: &[Element]) -> Vec<Bson> {
    elements.iter().map(term).collect()
}

/// `{$eq: [<element>, <loaded>]}` for a plain element, else
/// `{$let: {vars: {e: <element>}, in: <each value under $$e equal>}}`.
fn term(element: &Element) -> Bson {
    let at = access(&element.steps);
    if let [(sub, value)] = element.values.as_slice() {
        if sub.is_empty() {
            return equals(at, value.as_ref());
        }
    }
    let mut checks: Vec<Bson> = element
        .values
        .iter()
        .map(|(sub, value)| {
            let under = match sub.is_empty() {
                true => "$$e".to_string(),
                false => format!("$$e.{sub}"),
            };
            equals(Bson::String(under), value.as_ref())
        })
        .collect();
    let body = match checks.len() {
        1 => checks.pop().unwrap_or(Bson::Null),
        _ => Bson::Document(doc! { "$and": checks }),
    };
    Bson::Document(doc! { "$let": { "vars": { "e": at }, "in": body } })
}

/// The expression reading the value at `steps`: a field path while only
/// fields are read (`"$a.b"`), `$arrayElemAt` for an element, and a field
/// under an element through `$let` (`"$$e.f"`).
fn access(steps: &[Step]) -> Bson {
    // The expression `$$e` is bound to (none: the document), and the field
    // path read from it.
    let mut bound: Option<Bson> = None;
    let mut path = String::from("$");
    for step in steps {
        match step {
            Step::Field(name) => {
                if !path.ends_with('$') {
                    path.push('.');
                }
                path.push_str(name);
            }
            Step::Index(i) => {
                let array = read(bound.take(), std::mem::take(&mut path));
                bound = Some(Bson::Document(
                    doc! { "$arrayElemAt": [array, int(*i as i64)] },
                ));
                path = "$$e".to_string();
            }
        }
    }
    read(bound, path)
}

/// The field path `path` read from `bound` (or the document).
fn read(bound: Option<Bson>, path: String) -> Bson {
    match bound {
        None => Bson::String(path),
        Some(bound) if path == "$$e" => bound,
        Some(bound) => Bson::Document(doc! { "$let": { "vars": { "e": bound }, "in": path } }),
    }
}

/// `value` equals `loaded` (`None`: absent), null and absent told apart.
fn equals(value: Bson, loaded: Option<&Bson>) -> Bson {
    Bson::Document(match loaded {
        None => doc! { "$eq": [{ "$type": value }, "missing"] },
        Some(Bson::Null) => doc! { "$eq": [{ "$type": value }, "null"] },
        Some(loaded) => doc! { "$eq": [value, literal(loaded)] },
    })
}

/// `value` as a constant of an expression: as it is, unless an expression
/// would read it otherwise (a string starting with `$` is a field path, a
/// document an operator, an array a list of expressions).
fn literal(value: &Bson) -> Bson {
    match value {
        Bson::String(s) if s.starts_with('$') => Bson::Document(doc! { "$literal": s.clone() }),
        Bson::Document(_) | Bson::Array(_) | Bson::Undefined => {
            Bson::Document(doc! { "$literal": value.clone() })
        }
        _ => value.clone(),
    }
}

#[cfg(test)]
#[path = "position_tests.rs"]
mod tests;
