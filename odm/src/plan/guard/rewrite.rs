//! The rewrite guard: a write that replaces or removes a whole document or
//! array must not match when what it replaces changed since this copy
//! loaded it.
//!
//! Default mode lets an in-place edit (`$set: {"tags.4": ..}`,
//! `$set: {"profile.name": ..}`) land without bumping the version, so two
//! copies editing different elements both land. A copy loaded before such
//! an edit still holds the old version; a whole-array `$set`, a `$set` of
//! a map saved whole, a document or array set to null or a scalar, or an
//! `$unset` of a parent, sent by that copy, would match on the version and
//! silently drop the edit. So the filter of such a write also requires the
//! stored value at its path to equal, as the server compares it, the value
//! this copy loaded there: `{path: {$eq: <loaded>}}`. Any edit under the
//! path since (by odm, by Mongoose, by anyone) makes the write match
//! nothing, and the save fails with `Error::Version`; a reload and a retry
//! then rewrite what is really stored.
//!
//! The loaded value is the stored bytes as read (kept by the `Doc` where
//! they differ from the value serialized again: fields the model does not
//! know, another field order), so the guard of a fresh copy matches.

use mongodb::bson::raw::{RawDocument, RawDocumentBuf};
use mongodb::bson::{doc, Bson, Document};

use super::loaded::Loaded;
use crate::error::Error;
use crate::plan::diff::{lookup, Change, Op};

/// One rewrite guard: a dotted path and the value this copy loaded there
/// (`None`: the field was absent, and the change sets it whole).
pub(crate) type Rewrite = (String, Option<Bson>);

/// Whether `change` writes a whole new value, or absence, at its path
/// (rather than appending to, pulling from, or writing under it).
fn replaces(change: &Change) -> bool {
    match change.op {
        Op::Whole | Op::Unset => true,
        Op::Set => change.drops || matches!(change.value, Bson::Document(_) | Bson::Array(_)),
        Op::Push | Op::PullAll | Op::PullIds => false,
    }
}

/// The rewrite guards of `changes`: for each change that replaces a
/// document or an array this copy loaded (in `loaded`, the stored document
/// as this copy last knew it), that value. A change whose path held a
/// scalar or null replaces nothing another copy could have edited in
/// place: it gets no guard. A field set whole because the stored document
/// lacked it ([`Op::Whole`]) requires it still absent: another copy may
/// have set it and a third edited under it since. Fields in `skip`
/// (`skip_versioning`) are left out, as they are left out of versioning.
pub(crate) fn guards<'c>(
    changes: impl IntoIterator<Item = &'c Change>,
    loaded: &RawDocument,
    skip: &[&str],
) -> Result<Vec<Rewrite>, Error> {
    let mut loaded = Loaded::new(loaded);
    let mut out = Vec::new();
    for c in changes
        .into_iter()
        .filter(|c| replaces(c) && !skip.contains(&c.field()))
    {
        match loaded.get(&c.path)? {
            Some(value) if value.is_document() || value.is_array() => {
                out.push((c.path.clone(), Some(value.decode()?)));
            }
            None if c.op == Op::Whole => out.push((c.path.clone(), None)),
            _ => {}
        }
    }
    Ok(out)
}

/// Adds `{path: {$eq: loaded}}` (or `{path: {$exists: false}}`) per guard
/// to `filter` (inside an `$and` when the filter already has a term on
/// that path).
pub(crate) fn add(filter: &mut Document, guards: &[Rewrite]) {
    for (path, loaded) in guards {
        let term = match loaded {
            Some(loaded) => doc! { "$eq": loaded.clone() },
            None => doc! { "$exists": false },
        };
        if !filter.contains_key(path) {
            filter.insert(path.clone(), term);
            continue;
        }
        let and = filter
            .entry("$and".to_string())
            .or_insert_with(|| Bson::Array(Vec::new()));
        if let Bson::Array(terms) = and {
            terms.push(Bson::Document(doc! { path.clone(): term }));
        }
    }
}

/// The stored document as this copy knows it after a save of `changes`
/// succeeded, from `base` (what it knew before) and `current` (the value
/// just saved, serialized): every written path takes its new value, an
/// append adds its elements to what was there. `None` when that is
/// `current` itself (the common case: then `current` serves as the base),
/// or when `base` cannot be followed (the guards then use `current`; at
/// worst a later rewrite fails with `Error::Version` until a reload).
pub(crate) fn advance(
    base: &RawDocument,
    changes: &[Change],
    current: &RawDocument,
) -> Option<RawDocumentBuf> {
    let mut doc = Document::try_from(base).ok()?;
    for c in changes {
        let now = match lookup(current.as_bytes(), &c.path).ok()? {
            Some((value, _)) => Some(value.decode().ok()?),
            None => None,
        };
        match (c.op, &c.value) {
            (Op::Push, Bson::Array(pushed)) => match slot(&mut doc, &c.path)? {
                Some(Bson::Array(stored)) => stored.extend(pushed.iter().cloned()),
                _ => set(&mut doc, &c.path, now)?,
            },
            _ => set(&mut doc, &c.path, now)?,
        }
    }
    let advanced = RawDocumentBuf::try_from(&doc).ok()?;
    (advanced.as_bytes() != current.as_bytes()).then_some(advanced)
}

/// Whether a save of `changes` over `loaded` adds a key to a sub-document
/// (a `$set` of a dotted path `loaded` lacks): the server appends it, so
/// the stored field order may differ from the value's.
pub(crate) fn adds_keys(loaded: &RawDocument, changes: &[Change]) -> bool {
    changes.iter().any(|c| {
        matches!(c.op, Op::Set | Op::Whole)
            && c.path.contains('.')
            && matches!(lookup(loaded.as_bytes(), &c.path), Ok(None))
    })
}

/// The value at a dotted path (array elements by index), mutably.
fn slot<'a>(doc: &'a mut Document, path: &str) -> Option<Option<&'a mut Bson>> {
    let (parent, last) = match path.rsplit_once('.') {
        Some((parent, last)) => (Some(parent), last),
        None => (None, path),
    };
    let holder = match parent {
        Some(parent) => match walk(doc, parent)? {
            Some(holder) => holder,
            None => return Some(None),
        },
        None => return Some(doc.get_mut(last)),
    };
    Some(match holder {
        Bson::Document(d) => d.get_mut(last),
        Bson::Array(a) => last.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
        _ => None,
    })
}

/// The value at `path`, or `Some(None)` when the path leads nowhere.
fn walk<'a>(doc: &'a mut Document, path: &str) -> Option<Option<&'a mut Bson>> {
    let mut parts = path.split('.');
    let mut at = doc.get_mut(parts.next()?);
    for part in parts {
        at = match at {
            Some(Bson::Document(d)) => d.get_mut(part),
            Some(Bson::Array(a)) => a.get_mut(part.parse::<usize>().ok()?),
            _ => return Some(None),
        };
    }
    Some(at)
}

/// Sets (`Some`) or removes (`None`) the value at `path`; `None` when the
/// parent is not there (the base cannot be followed).
fn set(doc: &mut Document, path: &str, value: Option<Bson>) -> Option<()> {
    let Some((parent, last)) = path.rsplit_once('.') else {
        match value {
            Some(v) => doc.insert(path, v),
            None => doc.remove(path),
        };
        return Some(());
    };
    match walk(doc, parent)?? {
        Bson::Document(d) => {
            match value {
                Some(v) => d.insert(last, v),
                None => d.remove(last),
            };
        }
        Bson::Array(a) => {
            let i = last.parse::<usize>().ok()?;
            match (value, a.get_mut(i)) {
                (Some(v), Some(slot)) => *slot = v,
                (None, Some(slot)) => *slot = Bson::Null,
                _ => return None,
            }
        }
        _ => return None,
    }
    Some(())
}

#[cfg(test)]
#[path = "rewrite_tests.rs"]
mod tests;
