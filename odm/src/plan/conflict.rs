//! What a conflict is made of, as pure functions over documents: the paths
//! another writer changed since a copy was loaded (a version error's
//! `stored_changes`), whether two paths overlap, and the three-way merge
//! of [`Doc::rebase`](crate::Doc::rebase): this copy's changes re-applied
//! on the stored document when no path overlaps. No I/O here; the read
//! after a refused write is `model::refused`'s, the rebase's
//! `model::rebase`'s.
//!
//! Paths are the save rules' own (`plan::diff`): `meta.city` for a nested
//! field, `comments.1.text` for an element changed in place, `tags` for an
//! array pushed to, pulled from or rewritten, and a field added or removed
//! by its name. So this copy's paths ([`Doc::modified_paths`](crate::Doc::modified_paths))
//! and the store's are in one vocabulary, and overlap is a plain relation
//! between them.

use mongodb::bson::raw::{RawDocument, RawDocumentBuf};
use mongodb::bson::{Bson, Document};

use crate::plan::diff;
use crate::plan::versioning;

/// The dotted paths whose value differs between `loaded` (what a copy
/// loaded, without the version key and the fence) and `stored` (the
/// document as read now, likewise), in the save rules' depth. Nothing is
/// shown but paths.
pub(crate) fn changed_paths(loaded: &RawDocument, stored: &RawDocument) -> Vec<String> {
    match diff::diff_out(loaded, stored) {
        Ok(out) => versioning::modified_paths(&out.changes),
        // A top-level key that is no path (`a.b`, `$x`), or a malformed
        // document: the top-level fields that differ, by name.
        Err(_) => top_level_changes(loaded, stored),
    }
}

/// The top-level keys whose bytes differ between `a` and `b` (in either).
fn top_level_changes(a: &RawDocument, b: &RawDocument) -> Vec<String> {
    let (Ok(a), Ok(b)) = (Document::try_from(a), Document::try_from(b)) else {
        return Vec::new();
    };
    let mut out: Vec<String> = a
        .iter()
        .filter(|(k, v)| b.get(k.as_str()) != Some(v))
        .map(|(k, _)| k.clone())
        .collect();
    out.extend(b.keys().filter(|k| !a.contains_key(k.as_str())).cloned());
    out
}

/// Whether two dotted paths overlap: equal, or one lies under the other
/// (`meta` and `meta.city`; not `meta` and `metadata`).
pub(crate) fn overlaps(a: &str, b: &str) -> bool {
    let under = |long: &str, short: &str| {
        long.len() > short.len() && long.starts_with(short) && long.as_bytes()[short.len()] == b'.'
    };
    a == b || under(a, b) || under(b, a)
}

/// The paths of `theirs` that overlap a path of `mine`, in `theirs`' order.
pub(crate) fn overlap(theirs: &[String], mine: &[String]) -> Vec<String> {
    theirs
        .iter()
        .filter(|t| mine.iter().any(|m| overlaps(t, m)))
        .cloned()
        .collect()
}

/// Why a merge could not be made: the path it could not write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unmergeable(pub String);

/// The three-way merge: `stored` (the document as read now, without the
/// version key and the fence) with each path of `mine_paths` given the
/// value it has in `mine` (this copy's current value, serialized), or
/// removed where `mine` has none.
///
/// Sound when no path of `mine_paths` overlaps a path the store changed
/// since the copy was loaded (see [`overlap`]): every value at and under
/// such a path is then still as loaded, so writing this copy's value there
/// is exactly applying this copy's change (a push, a pull, an element
/// changed in place), and everything else stays the store's. A path that
/// cannot be written (its parent is gone, an element index out of range)
/// is `Err`, naming it.
pub(crate) fn merge(
    stored: &RawDocument,
    mine: &RawDocument,
    mine_paths: &[String],
) -> Result<RawDocumentBuf, Unmergeable> {
    let refused = |path: &String| Unmergeable(path.clone());
    let mut merged = Document::try_from(stored).map_err(|_| Unmergeable(String::new()))?;
    let mine = Document::try_from(mine).map_err(|_| Unmergeable(String::new()))?;
    for path in mine_paths {
        let parts: Vec<&str> = path.split('.').collect();
        let value = get(&mine, &parts).cloned();
        put(&mut merged, &parts, value).map_err(|()| refused(path))?;
    }
    RawDocumentBuf::try_from(&merged).map_err(|_| Unmergeable(String::new()))
}

/// The value at `path` (document keys and array indices).
fn get<'a>(doc: &'a Document, path: &[&str]) -> Option<&'a Bson> {
    let (first, rest) = path.split_first()?;
    let mut at = doc.get(*first)?;
    for part in rest {
        at = match at {
            Bson::Document(d) => d.get(*part)?,
            Bson::Array(items) => items.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// Writes `value` at `path` (removes it for `None`); `Err` when the parent
/// is not there to write into.
fn put(doc: &mut Document, path: &[&str], value: Option<Bson>) -> Result<(), ()> {
    let Some((last, parents)) = path.split_last() else {
        return Err(());
    };
    let Some((first, between)) = parents.split_first() else {
        match value {
            Some(value) => doc.insert(*last, value),
            None => doc.remove(*last),
        };
        return Ok(());
    };
    let mut slot = doc.get_mut(*first).ok_or(())?;
    for part in between {
        slot = step(slot, part)?;
    }
    match (slot, value) {
        (Bson::Document(d), Some(value)) => {
            d.insert(*last, value);
        }
        (Bson::Document(d), None) => {
            d.remove(*last);
        }
        (Bson::Array(items), Some(value)) => {
            let i: usize = last.parse().map_err(|_| ())?;
            *items.get_mut(i).ok_or(())? = value;
        }
        _ => return Err(()),
    }
    Ok(())
}

/// One step down from `slot`: a key of a document, an index of an array.
fn step<'a>(slot: &'a mut Bson, part: &str) -> Result<&'a mut Bson, ()> {
    match slot {
        Bson::Document(d) => d.get_mut(part).ok_or(()),
        Bson::Array(items) => {
            let i: usize = part.parse().map_err(|_| ())?;
            items.get_mut(i).ok_or(())
        }
        _ => Err(()),
    }
}

#[cfg(test)]
#[path = "conflict_tests.rs"]
mod tests;
