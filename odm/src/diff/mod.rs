//! What changed between two serializations of a document.
//!
//! The diff runs over raw BSON: a field whose bytes are unchanged is skipped
//! with one comparison, so an untouched 2,000-element array costs a memcmp.
//! Only changed values are converted to owned [`Bson`].

mod array;

use mongodb::bson::raw::{RawBsonRef, RawDocument};
use mongodb::bson::spec::ElementType;
use mongodb::bson::Bson;

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
    Error::Serialize(<mongodb::bson::ser::Error as serde::ser::Error>::custom(
        format_args!("malformed BSON: {e}"),
    ))
}

pub(crate) fn to_bson(value: RawBsonRef<'_>) -> Result<Bson, Error> {
    Bson::try_from(value).map_err(raw_error)
}

/// Equality of two stored values, bit for bit (so a NaN equals itself).
pub(crate) fn same(a: RawBsonRef<'_>, b: RawBsonRef<'_>) -> bool {
    match (a, b) {
        (RawBsonRef::Double(x), RawBsonRef::Double(y)) => x.to_bits() == y.to_bits(),
        (RawBsonRef::Document(x), RawBsonRef::Document(y)) => x.as_bytes() == y.as_bytes(),
        (RawBsonRef::Array(x), RawBsonRef::Array(y)) => x.as_bytes() == y.as_bytes(),
        _ => a.element_type() == b.element_type() && a == b,
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
pub(crate) fn diff(old: &RawDocument, new: &RawDocument) -> Result<Vec<Change>, Error> {
    let mut out = Vec::new();
    if old.as_bytes() != new.as_bytes() {
        diff_document(old, new, "", false, &mut out)?;
    }
    Ok(out)
}

/// The fields of a document, in stored order.
type Entries<'a> = Vec<(&'a str, RawBsonRef<'a>)>;

fn entries(doc: &RawDocument) -> Result<Entries<'_>, Error> {
    doc.iter().collect::<Result<_, _>>().map_err(raw_error)
}

pub(crate) fn diff_document(
    old: &RawDocument,
    new: &RawDocument,
    prefix: &str,
    positional: bool,
    out: &mut Vec<Change>,
) -> Result<(), Error> {
    // Each document is parsed once; lookups then compare keys only. A key
    // resolves to its first occurrence, as `RawDocument::get` does.
    let before = entries(old)?;
    let after = entries(new)?;
    let mut found = vec![false; before.len()];
    for &(key, value) in &after {
        match before.iter().position(|(k, _)| *k == key) {
            None => set(out, join(prefix, key), value, positional)?,
            Some(i) => {
                found[i] = true;
                let previous = before[i].1;
                if !same(previous, value) {
                    diff_value(previous, value, join(prefix, key), positional, out)?;
                }
            }
        }
    }
    for (&(key, _), found) in before.iter().zip(found) {
        // An entry not found may still share its key with one that was.
        if !found && !after.iter().any(|(k, _)| *k == key) {
            out.push(Change {
                op: Op::Unset,
                path: join(prefix, key),
                value: Bson::String(String::new()),
                positional,
            });
        }
    }
    Ok(())
}

/// Two different values at one path.
fn diff_value(
    before: RawBsonRef<'_>,
    after: RawBsonRef<'_>,
    path: String,
    positional: bool,
    out: &mut Vec<Change>,
) -> Result<(), Error> {
    match (before, after) {
        (RawBsonRef::Document(b), RawBsonRef::Document(a)) => {
            diff_document(b, a, &path, positional, out)
        }
        (RawBsonRef::Array(b), RawBsonRef::Array(a)) => {
            array::diff_array(b, a, path, positional, out)
        }
        _ => set(out, path, after, positional),
    }
}

fn set(
    out: &mut Vec<Change>,
    path: String,
    value: RawBsonRef<'_>,
    positional: bool,
) -> Result<(), Error> {
    out.push(Change {
        op: Op::Set,
        path,
        value: to_bson(value)?,
        positional,
    });
    Ok(())
}

/// `true` for a value that is an embedded document carrying an `_id`.
fn id_of(value: RawBsonRef<'_>) -> Option<RawBsonRef<'_>> {
    match value {
        RawBsonRef::Document(d) => d.get("_id").ok().flatten(),
        _ => None,
    }
}

fn is_document(value: RawBsonRef<'_>) -> bool {
    value.element_type() == ElementType::EmbeddedDocument
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod lookup_tests;
