//! Which targets a write refers to under its model's rules: pure rules,
//! tested without a server.
//!
//! A write must mark (and so find) every target whose id it writes into a
//! field under a rule. A save writes a field when its value changed since
//! the copy was loaded or saved, so it marks the ids of every rule field
//! that changed (all of a list's ids when the list changed: a list written
//! whole rewrites them all). A set-based write (`update_many`, `claim`,
//! `upsert`) is read from its operators: the ids `$set`, `$setOnInsert`,
//! `$push` and `$addToSet` write at or into a rule field (and, for an
//! upsert, the ids its filter fixes by equality, which an inserted
//! document takes); an operator that writes a rule field with a value
//! computed by the server (`$rename` onto it, `$inc`, `$min`, ...) cannot
//! be checked and is refused before sending.

use mongodb::bson::raw::{RawBsonRef, RawDocument};
use mongodb::bson::{Bson, Document};

use super::linked::{Rule, Shape};
use super::reference::Ref;
use crate::error::{Error, ValidationError, ValidationErrors};

/// The ids a write refers to, per rule (by the rule's index).
pub(crate) type Targets = Vec<Vec<Bson>>;

/// Whether no rule has an id to mark.
pub(crate) fn none(targets: &Targets) -> bool {
    targets.iter().all(Vec::is_empty)
}

/// The ids `stored` (a document as stored or saved) holds under each rule.
pub(crate) fn stored_ids(rules: &[Rule], stored: &RawDocument) -> Targets {
    rules
        .iter()
        .map(|rule| match stored.get(rule.path) {
            Ok(Some(value)) => ids_in(value),
            _ => Vec::new(),
        })
        .collect()
}

/// The ids of one stored value: an array's elements, or the value (none
/// for null).
fn ids_in(value: RawBsonRef<'_>) -> Vec<Bson> {
    let one = |v: RawBsonRef<'_>| match v {
        RawBsonRef::Null => None,
        v => Bson::try_from(v).ok(),
    };
    match value {
        RawBsonRef::Array(items) => items.into_iter().flatten().filter_map(one).collect(),
        v => one(v).into_iter().collect(),
    }
}

/// What a save writes under each rule: the ids `now` holds in every rule
/// field whose ids differ from `before` (in value or order); all of them
/// for a new document (`before` is `None`).
pub(crate) fn written(before: Option<&Targets>, now: &Targets) -> Targets {
    now.iter()
        .enumerate()
        .map(|(i, ids)| match before.and_then(|b| b.get(i)) {
            Some(was) if same(was, ids) => Vec::new(),
            _ => ids.clone(),
        })
        .collect()
}

/// `a` and `b` hold the same ids in the same order.
fn same(a: &[Bson], b: &[Bson]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| Ref::<()>::from_bson(x.clone()) == Ref::from_bson(y.clone()))
}

/// `targets` without the ids `already` holds under the same rule.
pub(crate) fn minus(targets: &Targets, already: &Targets) -> Targets {
    targets
        .iter()
        .enumerate()
        .map(|(i, ids)| {
            let had: std::collections::HashSet<Ref<()>> = already
                .get(i)
                .into_iter()
                .flatten()
                .cloned()
                .map(Ref::from_bson)
                .collect();
            ids.iter()
                .filter(|id| !had.contains(&Ref::from_bson((*id).clone())))
                .cloned()
                .collect()
        })
        .collect()
}

/// `into` plus every id of `more`, rule by rule.
pub(crate) fn add(into: &mut Targets, more: Targets) {
    if into.len() < more.len() {
        into.resize(more.len(), Vec::new());
    }
    for (i, ids) in more.into_iter().enumerate() {
        into[i].extend(ids);
    }
}

/// The operators whose values are ids written as they are.
const WRITING: [&str; 4] = ["$set", "$setOnInsert", "$push", "$addToSet"];

/// The operators that only remove.
const REMOVING: [&str; 4] = ["$unset", "$pull", "$pullAll", "$pop"];

/// The ids an update document (operators) writes under each rule, or the
/// refusal of an operator that writes a rule field with a value odm cannot
/// see.
pub(crate) fn written_by_update(
    rules: &[Rule],
    collection: &str,
    update: &Document,
) -> Result<Targets, Error> {
    let mut targets: Targets = vec![Vec::new(); rules.len()];
    for (op, body) in update {
        let Bson::Document(body) = body else {
            continue;
        };
        for (key, value) in body {
            let renamed_onto = match (op.as_str(), value) {
                ("$rename", Bson::String(to)) => Some(to.as_str()),
                _ => None,
            };
            for (i, rule) in rules.iter().enumerate() {
                let at = renamed_onto.unwrap_or(key);
                let Some(rest) = under(at, rule.path) else {
                    continue;
                };
                if renamed_onto.is_some() {
                    return Err(unchecked(
                        collection,
                        rule,
                        op,
                        "moves a value of unknown reference into it",
                    ));
                }
                if REMOVING.contains(&op.as_str()) {
                    continue;
                }
                if !WRITING.contains(&op.as_str()) {
                    return Err(unchecked(
                        collection,
                        rule,
                        op,
                        "computes its value on the server",
                    ));
                }
                let ids = match (op.as_str(), rest) {
                    ("$set" | "$setOnInsert", None) => whole(rule, value),
                    ("$set" | "$setOnInsert", Some(step)) if element(rule, step) => single(value),
                    ("$push" | "$addToSet", None) if rule.shape == Shape::Many => each(value),
                    _ => {
                        return Err(unchecked(collection, rule, op, "writes inside it"));
                    }
                };
                targets[i].extend(ids);
            }
        }
    }
    Ok(targets)
}

/// The ids an upsert writes: its `set` and `set_on_insert` fields, and the
/// ids its filter fixes by equality (an inserted document takes them).
pub(crate) fn written_by_upsert(
    rules: &[Rule],
    collection: &str,
    filter: &Document,
    set: &Document,
    set_on_insert: &Document,
) -> Result<Targets, Error> {
    let mut update = Document::new();
    update.insert("$set", set.clone());
    update.insert("$setOnInsert", set_on_insert.clone());
    let mut targets = written_by_update(rules, collection, &update)?;
    for (i, rule) in rules.iter().enumerate() {
        fixed(filter, rule, &mut targets[i]);
    }
    Ok(targets)
}

/// The ids `filter` fixes `rule`'s field to by equality (`{f: v}`,
/// `{f: {$eq: v}}`, also inside a top-level `$and`).
fn fixed(filter: &Document, rule: &Rule, out: &mut Vec<Bson>) {
    match filter.get(rule.path) {
        Some(Bson::Document(d)) if d.keys().next().is_some_and(|k| k.starts_with('$')) => {
            if let (1, Some(v)) = (d.len(), d.get("$eq")) {
                out.extend(whole(rule, v));
            }
        }
        Some(v) => out.extend(whole(rule, v)),
        None => {}
    }
    if let Some(Bson::Array(terms)) = filter.get("$and") {
        for term in terms {
            if let Bson::Document(term) = term {
                fixed(term, rule, out);
            }
        }
    }
}

/// `Some(rest)` when `path` is the rule's field (`rest` `None`) or under
/// it (`rest` the part after it).
fn under<'p>(path: &'p str, field: &str) -> Option<Option<&'p str>> {
    if path == field {
        return Some(None);
    }
    let rest = path.strip_prefix(field)?.strip_prefix('.')?;
    Some(Some(rest))
}

/// Whether `step` names one element of the rule's list: `3`, `$`, `$[]`,
/// `$[name]`.
fn element(rule: &Rule, step: &str) -> bool {
    rule.shape == Shape::Many
        && !step.contains('.')
        && (step.bytes().all(|b| b.is_ascii_digit())
            || step == "$"
            || (step.starts_with("$[") && step.ends_with(']')))
}

/// The ids of a whole field's value.
fn whole(rule: &Rule, value: &Bson) -> Vec<Bson> {
    match (rule.shape, value) {
        (_, Bson::Null) => Vec::new(),
        (Shape::Many, Bson::Array(items)) => items
            .iter()
            .filter(|v| **v != Bson::Null)
            .cloned()
            .collect(),
        (_, v) => vec![v.clone()],
    }
}

/// The id of one element (none for null).
fn single(value: &Bson) -> Vec<Bson> {
    match value {
        Bson::Null => Vec::new(),
        v => vec![v.clone()],
    }
}

/// The ids a `$push` / `$addToSet` appends: one value or `{$each: [..]}`.
fn each(value: &Bson) -> Vec<Bson> {
    match value {
        Bson::Document(d) if d.contains_key("$each") => match d.get("$each") {
            Some(Bson::Array(items)) => items
                .iter()
                .filter(|v| **v != Bson::Null)
                .cloned()
                .collect(),
            _ => Vec::new(),
        },
        v => single(v),
    }
}

/// The refusal of an update odm cannot check against a rule.
fn unchecked(collection: &str, rule: &Rule, op: &str, why: &str) -> Error {
    let mut errors = ValidationErrors::new();
    errors.push(ValidationError::new(
        rule.path,
        format!(
            "`{op}` {why}: a reference under a referential rule of \"{collection}\" is written only with the ids in the update (`$set`, `$setOnInsert`, `$push`, `$addToSet`), or by a save"
        ),
    ));
    Error::Validation(errors)
}

#[cfg(test)]
mod tests;
