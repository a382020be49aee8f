//! What the filter of a save requires of the stored document besides its
//! `_id` and version: that the changes still mean what they meant when
//! this copy computed them. A save whose guards fail matched nothing
//! because its copy is stale: it fails with `Error::Version` and writes
//! nothing.
//!
//! - The removal guard (save-rules.md): a `$pullAll` takes every element
//!   equal to a removed value, so the stored array must still hold exactly
//!   as many equal elements as the copy loaded; otherwise another copy
//!   pushed or pulled an equal value since, and the pull would lose it.
//! - The parent guard: an update under `a.b` (`$set: {"a.b.c": ..}`, a
//!   push onto `a.b.list`) creates `a.b` as a fragment if another copy
//!   removed or nulled it since (an `Option` set to `None`, a map entry
//!   removed), and the document no longer loads. A save that removes a
//!   document or an array bumps the version, so a save that checks the
//!   version is safe; one that does not requires every parent of a path it
//!   writes to still be a document or an array.
//! - The rewrite guard ([`rewrite`]): a write replacing or removing a whole
//!   document or array requires the stored value there to be what this
//!   copy loaded, so it cannot drop an in-place edit it did not see.
//! - The positional guard ([`position`]): an in-place edit of an array
//!   element requires the element to still hold what this copy loaded
//!   there (and a sub-document its `_id`), so it cannot land on top of
//!   another copy's change of that element.

mod loaded;
pub(crate) mod position;
pub(crate) mod rewrite;

use std::collections::HashSet;

use mongodb::bson::{doc, Bson, Document};

use crate::plan::diff::{Change, Op};
use crate::plan::versioning::int;

/// Adds the guards of `changes` to `filter`: unless the save `checks`
/// the version, `{parent: {$type: [object, array]}}` per distinct parent
/// path; then one `$expr` of removal guards.
pub(crate) fn add_guards(filter: &mut Document, changes: &[Change], checks: bool) {
    if !checks {
        let mut parents = HashSet::new();
        for c in changes {
            if let Some((parent, _)) = c.path.rsplit_once('.') {
                if parents.insert(parent) {
                    filter.insert(parent, doc! { "$type": ["object", "array"] });
                }
            }
        }
    }
    add_expr(filter, changes.iter().flat_map(removal_guard).collect());
}

/// Adds aggregation `terms` to the filter's one `$expr` (all of them must
/// hold): the term itself when it is the only one, else an `$and`.
pub(crate) fn add_expr(filter: &mut Document, mut terms: Vec<Bson>) {
    if terms.is_empty() {
        return;
    }
    match filter.get_mut("$expr") {
        Some(Bson::Document(expr)) if expr.len() == 1 && expr.contains_key("$and") => {
            if let Ok(all) = expr.get_array_mut("$and") {
                all.extend(terms);
            }
        }
        Some(expr) => {
            terms.insert(0, std::mem::replace(expr, Bson::Null));
            *expr = Bson::Document(doc! { "$and": terms });
        }
        None if terms.len() == 1 => {
            filter.insert("$expr", terms.pop().unwrap_or(Bson::Null));
        }
        None => {
            filter.insert("$expr", doc! { "$and": terms });
        }
    }
}

/// Whether the filter of a save with these changes holds a guard.
pub(crate) fn guarded(changes: &[Change], checks: bool) -> bool {
    changes
        .iter()
        .any(|c| (!checks && c.path.contains('.')) || !removed_values(c).is_empty())
}

/// The values a change's removal guard counts: those of a non-positional
/// `$pullAll` (a positional pull checks the version instead).
fn removed_values(change: &Change) -> &[Bson] {
    match (&change.op, &change.value, change.positional) {
        (Op::PullAll, Bson::Array(values), false) => values,
        _ => &[],
    }
}

/// The removal guard of one `$pullAll`: for each removed value, the stored
/// array holds exactly as many equal elements as the copy loaded.
fn removal_guard(change: &Change) -> Vec<Bson> {
    let values = removed_values(change);
    if values.is_empty() {
        return Vec::new();
    }
    let field = format!("${}", change.path);
    values
        .iter()
        .zip(&change.counts)
        .map(|(value, &count)| {
            let array = doc! { "$cond": [{ "$isArray": &field }, &field, []] };
            let equal = doc! { "$eq": ["$$this", { "$literal": value.clone() }] };
            let matching = doc! { "$filter": { "input": array, "cond": equal } };
            Bson::Document(doc! { "$eq": [{ "$size": matching }, int(count)] })
        })
        .collect()
}

#[cfg(test)]
mod tests;
