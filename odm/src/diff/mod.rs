//! What changed between two serializations of a document.
//!
//! The diff runs over raw BSON: a field whose bytes are unchanged is skipped
//! with one comparison, so an untouched 2,000-element array costs a memcmp.
//! Only changed values are converted to owned [`Bson`].

mod array;
mod scan;

use mongodb::bson::raw::RawDocument;
use mongodb::bson::Bson;

use scan::{elements, Elem};

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
}

impl Change {
    /// The top-level field this change touches.
    pub fn field(&self) -> &str {
        self.path.split('.').next().unwrap_or("")
    }
}

pub(crate) fn raw_error(e: impl std::fmt::Display) -> Error {
    Error::from(<mongodb::bson::ser::Error as serde::ser::Error>::custom(
        format_args!("malformed BSON: {e}"),
    ))
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
pub(crate) fn diff(old: &RawDocument, new: &RawDocument) -> Result<Vec<Change>, Error> {
    let mut out = Vec::new();
    if old.as_bytes() != new.as_bytes() {
        diff_document(old.as_bytes(), new.as_bytes(), "", false, &mut out)?;
    }
    Ok(out)
}

/// Diffs two documents given as their bytes.
pub(crate) fn diff_document(
    old: &[u8],
    new: &[u8],
    prefix: &str,
    positional: bool,
    out: &mut Vec<Change>,
) -> Result<(), Error> {
    // Each document is walked once; lookups then compare keys only. A key
    // resolves to its first occurrence, as `RawDocument::get` does.
    let before = elements(old)?;
    let after = elements(new)?;
    let mut found = vec![false; before.len()];
    for value in &after {
        match before.iter().position(|b| b.key == value.key) {
            None => set(out, join(prefix, value.key_str()?), value, positional)?,
            Some(i) => {
                found[i] = true;
                let previous = &before[i];
                if !previous.same(value) {
                    let path = join(prefix, value.key_str()?);
                    diff_value(previous, value, path, positional, out)?;
                }
            }
        }
    }
    for (entry, found) in before.iter().zip(found) {
        // An entry not found may still share its key with one that was.
        if !found && !after.iter().any(|a| a.key == entry.key) {
            out.push(Change {
                op: Op::Unset,
                path: join(prefix, entry.key_str()?),
                value: Bson::String(String::new()),
                positional,
            });
        }
    }
    Ok(())
}

/// Two different values at one path.
fn diff_value(
    before: &Elem<'_>,
    after: &Elem<'_>,
    path: String,
    positional: bool,
    out: &mut Vec<Change>,
) -> Result<(), Error> {
    if before.is_document() && after.is_document() {
        diff_document(before.value, after.value, &path, positional, out)
    } else if before.is_array() && after.is_array() {
        array::diff_array(before.value, after.value, path, positional, out)
    } else {
        set(out, path, after, positional)
    }
}

fn set(
    out: &mut Vec<Change>,
    path: String,
    value: &Elem<'_>,
    positional: bool,
) -> Result<(), Error> {
    out.push(Change {
        op: Op::Set,
        path,
        value: value.decode()?,
        positional,
    });
    Ok(())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod lookup_tests;

#[cfg(test)]
mod walk_tests;
