//! What changed between two serializations of a document.
//!
//! The diff runs over raw BSON: a field whose bytes are unchanged is skipped
//! with one comparison, so an untouched 2,000-element array costs a memcmp.
//! Only changed values are converted to owned [`Bson`].

mod array;
mod eq;
mod lockstep;
mod missing;
mod patch;

use mongodb::bson::raw::RawDocument;
use mongodb::bson::Bson;

pub(crate) use crate::codec::scan::raw_error;
use crate::codec::scan::{elements, Elem, Keys};
pub(crate) use missing::{field, fill_missing, lookup, missing_paths, settle_missing, Missing};
pub(crate) use patch::diff_patch;

use crate::error::Error;

/// The update operator a change is sent with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `$set: {path: value}`.
    Set,
    /// `$unset: {path: ""}`.
    Unset,
    /// `$push: {path: {$each: value}}`; `value` is the appended elements.
    Push,
    /// `$pullAll: {path: value}`; `value` is the removed primitives.
    PullAll,
    /// `$pull: {path: {_id: {$in: value}}}`; `value` is the removed `_id`s.
    PullIds,
    /// `$set: {path: value}` of a whole value in place of the changes
    /// under it: a map holding a key that cannot be a path, or a field the
    /// stored document lacks (filled in by `#[serde(default)]`). Checked and
    /// bumped, since it rewrites what other copies may have changed or be
    /// filling in too.
    Whole,
}

/// One change, as one entry of one update operator.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    pub op: Op,
    /// Dotted BSON path.
    pub path: String,
    pub value: Bson,
    /// The path goes through an array element (`comments.3.text`).
    pub positional: bool,
    /// For [`Op::PullAll`]: how many elements equal to each removed value
    /// the copy loaded (the removal guard); empty otherwise.
    pub counts: Vec<i64>,
    /// A `$set` or `$unset` that removes a document or an array (sets it
    /// to null or a scalar, or unsets it): other copies may be writing
    /// under it, so it bumps the version.
    pub drops: bool,
}

impl Change {
    pub fn new(op: Op, path: String, value: Bson, positional: bool) -> Change {
        Change {
            op,
            path,
            value,
            positional,
            counts: Vec::new(),
            drops: false,
        }
    }

    /// `self`, marked as removing a document or an array when `before` is
    /// one and `after` (`None`: unset) is none.
    fn dropping(mut self, before: &Elem<'_>, after: Option<&Elem<'_>>) -> Change {
        let container = |e: &Elem<'_>| e.is_document() || e.is_array();
        self.drops = container(before) && !after.is_some_and(container);
        self
    }

    /// The top-level field this change touches.
    pub fn field(&self) -> &str {
        self.path.split('.').next().unwrap_or("")
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        let mut s = String::with_capacity(prefix.len() + 1 + key.len());
        s.push_str(prefix);
        s.push('.');
        s.push_str(key);
        s
    }
}

/// The changes that turn `old` into `new`, in the field order of `new`
/// (sets), then of `old` (unsets).
#[cfg(test)]
pub(crate) fn diff(old: &RawDocument, new: &RawDocument) -> Result<Vec<Change>, Error> {
    Ok(diff_out(old, new)?.changes)
}

/// What a diff found: the changes, and whether the server's field order
/// will differ from `new`'s once they are applied.
#[derive(Debug, Default)]
pub(crate) struct Out {
    /// The changes that turn `old` into `new` (see [`diff`]).
    pub changes: Vec<Change>,
    /// A sub-document of `new` holds keys it shares with `old` in another
    /// order, or a key `old` lacks before one it has: the per-key updates
    /// keep the stored order (and append what they add), so the stored
    /// sub-document will not be `new`'s bytes. (The order of `new` changes
    /// under `&mut` without a change of content: a `HashMap` that grew and
    /// rehashed, or one built anew.) Top-level order is not tracked: no
    /// write compares a whole document.
    pub reordered: bool,
}

impl Out {
    fn push(&mut self, change: Change) {
        self.changes.push(change);
    }

    fn len(&self) -> usize {
        self.changes.len()
    }

    fn truncate(&mut self, len: usize) {
        self.changes.truncate(len);
    }
}

/// [`diff`], with what it found of the field order.
pub(crate) fn diff_out(old: &RawDocument, new: &RawDocument) -> Result<Out, Error> {
    let mut out = Out::default();
    if old.as_bytes() != new.as_bytes() {
        diff_document(old.as_bytes(), new.as_bytes(), "", false, &mut out)?;
    }
    Ok(out)
}

/// A key that an update path cannot name: it would be read as a path
/// (`a.b`), an operator (`$x`) or nothing (``).
fn is_awkward(key: &[u8]) -> bool {
    key.is_empty() || key[0] == b'$' || key.contains(&b'.')
}

/// Diffs two documents given as their bytes.
///
/// A key that cannot be part of an update path never becomes one: when a
/// changed, added or removed key is such a key, the whole document at
/// `prefix` is set instead ([`Op::Whole`]; at the top level, where that is
/// impossible, the save fails before anything is sent).
pub(crate) fn diff_document(
    old: &[u8],
    new: &[u8],
    prefix: &str,
    positional: bool,
    out: &mut Out,
) -> Result<(), Error> {
    if lockstep::diff_in_step(old, new, prefix, positional, out)? {
        return Ok(());
    }
    // Each document is walked once; lookups then compare keys only. A key
    // resolves to its first occurrence, as `RawDocument::get` does.
    let before = elements(old)?;
    let after = elements(new)?;
    let old_keys = Keys::new(&before);
    let start = out.len();
    let mut found = vec![false; before.len()];
    // The stored order after per-key updates: the kept keys as they were,
    // the added ones after them.
    let mut last = None;
    // Where the changes adding a key to this sub-document went in `out`.
    let mut adds = Vec::new();
    for value in &after {
        let previous = old_keys.first(value.key);
        if !prefix.is_empty() {
            match previous {
                Some(i) => {
                    out.reordered |= !adds.is_empty() || last.is_some_and(|last| i < last);
                    last = Some(i);
                }
                None => adds.push(out.len()),
            }
        }
        if let Some(i) = previous {
            found[i] = true;
            if before[i].same(value) {
                continue;
            }
        }
        if is_awkward(value.key) {
            return whole(new, value.key, prefix, positional, start, out);
        }
        let path = join(prefix, value.key_str()?);
        match previous {
            None => set(out, path, value, positional)?,
            Some(i) => diff_value(&before[i], value, path, positional, out)?,
        }
    }
    in_server_order(out, &adds, prefix);
    let mut new_keys = None;
    for (entry, found) in before.iter().zip(found) {
        if found {
            continue;
        }
        // An entry not found may still share its key with one that was.
        let new_keys = new_keys.get_or_insert_with(|| Keys::new(&after));
        if new_keys.first(entry.key).is_none() {
            if is_awkward(entry.key) {
                return whole(new, entry.key, prefix, positional, start, out);
            }
            out.push(
                Change::new(
                    Op::Unset,
                    join(prefix, entry.key_str()?),
                    Bson::String(String::new()),
                    positional,
                )
                .dropping(entry, None),
            );
        }
    }
    Ok(())
}

/// Puts the changes at `adds` (each adding a key under `prefix`) in the
/// order the server appends the keys: MongoDB (5.0 on) applies an update's
/// fields by name, numeric names in numeric order, the others in byte
/// order, and a server that applies them as sent then agrees. So the
/// stored order of the added keys does not depend on the server, and the
/// `Doc` can follow it (see [`Out::reordered`]).
fn in_server_order(out: &mut Out, adds: &[usize], prefix: &str) {
    if adds.len() < 2 {
        return;
    }
    let mut moved: Vec<Change> = adds
        .iter()
        .map(|&i| {
            std::mem::replace(
                &mut out.changes[i],
                Change::new(Op::Set, String::new(), Bson::Null, false),
            )
        })
        .collect();
    moved.sort_by(|a, b| field_order(added_key(a, prefix), added_key(b, prefix)));
    for (&i, change) in adds.iter().zip(moved) {
        out.changes[i] = change;
    }
}

/// The key a change adds under `prefix` (its path is `prefix.key`).
fn added_key<'c>(change: &'c Change, prefix: &str) -> &'c str {
    &change.path[prefix.len() + 1..]
}

/// The order in which MongoDB applies two fields of one update level:
/// numeric names by value, other names by bytes. (Where one name is
/// numeric and the other is not, the server's order is not documented;
/// numeric names go first here, which keeps the order total. Should a
/// server order them otherwise, a later rewrite of that sub-document fails
/// with `Error::Version` until a reload: never a lost write.)
fn field_order(a: &str, b: &str) -> std::cmp::Ordering {
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match (numeric(a), numeric(b)) {
        (true, true) => {
            let (x, y) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
            x.len()
                .cmp(&y.len())
                .then_with(|| x.cmp(y))
                .then_with(|| a.cmp(b))
        }
        (true, false) => std::cmp::Ordering::Less,
        (false, true) => std::cmp::Ordering::Greater,
        (false, false) => a.as_bytes().cmp(b.as_bytes()),
    }
}

/// The whole document `new` set at `prefix`, in place of the changes made
/// under it since `start`, because `key` cannot be part of a path.
fn whole(
    new: &[u8],
    key: &[u8],
    prefix: &str,
    positional: bool,
    start: usize,
    out: &mut Out,
) -> Result<(), Error> {
    if prefix.is_empty() {
        return Err(Error::from(
            <crate::bson_release::SerError as serde::ser::Error>::custom(format_args!(
                "the top-level key {:?} cannot be saved by an update: a key that \
                 contains '.', starts with '$' or is empty is not a field path; \
                 keep such keys inside a map field, which is then saved whole",
                String::from_utf8_lossy(key)
            )),
        ));
    }
    out.truncate(start);
    let document = Elem {
        tag: mongodb::bson::spec::ElementType::EmbeddedDocument as u8,
        key: b"",
        value: new,
    };
    out.push(Change::new(
        Op::Whole,
        prefix.to_string(),
        document.decode()?,
        positional,
    ));
    Ok(())
}

/// Two different values at one path.
fn diff_value(
    before: &Elem<'_>,
    after: &Elem<'_>,
    path: String,
    positional: bool,
    out: &mut Out,
) -> Result<(), Error> {
    if before.is_document() && after.is_document() {
        diff_document(before.value, after.value, &path, positional, out)
    } else if before.is_array() && after.is_array() {
        array::diff_array(before.value, after.value, path, positional, out)
    } else {
        out.push(
            Change::new(Op::Set, path, after.decode()?, positional).dropping(before, Some(after)),
        );
        Ok(())
    }
}

fn set(out: &mut Out, path: String, value: &Elem<'_>, positional: bool) -> Result<(), Error> {
    out.push(Change::new(Op::Set, path, value.decode()?, positional));
    Ok(())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod lookup_tests;

#[cfg(test)]
mod walk_tests;

#[cfg(test)]
mod rules_tests;

#[cfg(test)]
mod missing_tests;

#[cfg(test)]
mod patch_tests;
