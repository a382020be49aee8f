//! The kind of an enum model in its writes, as pure functions (see
//! `schema::kind` for what the derive records).
//!
//! - The kind key is part of every write's filter, as the `_id` is
//!   ([`KindTerm`], [`add`]): a copy of one kind never writes into a
//!   document that another copy turned into another kind, whatever the
//!   versioning mode (a scalar edit is not version-checked in the default
//!   mode; the kind is).
//! - A save that changes the kind is a rewrite ([`effect`]): it checks and
//!   bumps the version, removes every field the old kind had and the new
//!   one lacks (the diff's `$unset`s), and writes every field of the new
//!   kind the store lacks, even one whose value the old kind shared
//!   ([`fill_new_kind`]), all in the one update.
//! - A kind's own handle scopes every filter to it ([`scoped`]), and no
//!   set-based write may write the kind key ([`check_update`]): a `$set`
//!   of it would leave the old kind's fields beside the new kind (what
//!   Mongoose did, #5130 and #9600).

use mongodb::bson::raw::RawDocument;
use mongodb::bson::{doc, Document};

use crate::codec::scan::raw_error;
use crate::error::{Error, Result, ValidationError};
use crate::plan::diff::{lookup, Change, Missing, Op};
use crate::plan::tracked::Tracked;
use crate::plan::update_ops::same_or_under;
use crate::plan::versioning::Effect;
use crate::schema::kind::Kinds;
use crate::schema::meta::Versioning;

/// The kind in the filter of a save of a stored document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct KindTerm {
    /// The kind key (the serde tag).
    pub key: &'static str,
    /// The kind the document was loaded or last saved as (one of the
    /// model's names): what the filter requires.
    pub loaded: &'static str,
    /// The save changes the kind.
    pub changed: bool,
}

/// The kind term of a save of a document tracked as `tracked` with
/// `changes`; `None` for a struct, a new document (an insert has no
/// filter), or a tracked state that holds no kind.
pub(crate) fn term(
    kinds: Option<Kinds>,
    tracked: &Tracked,
    changes: &[Change],
) -> Result<Option<KindTerm>> {
    let Some(kinds) = kinds else {
        return Ok(None);
    };
    let Some(loaded) = loaded(kinds, tracked)? else {
        return Ok(None);
    };
    Ok(Some(KindTerm {
        key: kinds.key,
        changed: changes.iter().any(|c| c.path == kinds.key),
        loaded,
    }))
}

/// The kind the stored document holds as this copy knows it (in the
/// snapshot, the value as loaded or saved, serialized; or the document as
/// read), as the model's name for it. A kind that is none of the model's
/// names cannot have been loaded: it is an error.
pub(crate) fn loaded(kinds: Kinds, tracked: &Tracked) -> Result<Option<&'static str>> {
    let bytes = match tracked {
        Tracked::Snapshot { snapshot, .. } => snapshot.as_bytes(),
        Tracked::Clean { stored, .. } => stored.as_bytes(),
        Tracked::New | Tracked::Unserializable { .. } => return Ok(None),
    };
    let Some(stored) = crate::schema::kind::stored_kind(bytes, kinds.key) else {
        return Ok(None);
    };
    match kinds.names.iter().find(|name| **name == stored) {
        Some(name) => Ok(Some(name)),
        None => Err(raw_error(format!(
            "the stored kind `{stored}` is none of the model's kinds"
        ))),
    }
}

/// The version effect of a save, `effect` as the versioning rules give
/// it, once the kind is known: a change of kind rewrites the document, so
/// it checks and bumps the version (when the model keeps one), in every
/// mode.
pub(crate) fn effect(term: Option<&KindTerm>, rules: &Versioning, effect: Effect) -> Effect {
    match term {
        Some(term) if term.changed && rules.key.is_some() => Effect::ALL,
        _ => effect,
    }
}

/// On a change of kind, a `$set` of every path the store lacks (filled in
/// by `#[serde(default)]` on load) that the new kind holds and no change
/// already writes: the diff sees no change where the new kind's value
/// equals the old kind's default, but the store must hold every field of
/// the new kind. Nothing without a change of kind.
pub(crate) fn fill_new_kind(
    term: Option<&KindTerm>,
    changes: &mut Vec<Change>,
    missing: &Missing,
    current: &RawDocument,
) -> Result<()> {
    if !term.is_some_and(|t| t.changed) {
        return Ok(());
    }
    for path in missing {
        let written = changes
            .iter()
            .any(|c| same_or_under(&c.path, path) || same_or_under(path, &c.path));
        if written {
            continue;
        }
        if let Some((value, positional)) = lookup(current.as_bytes(), path)? {
            changes.push(Change::new(
                Op::Whole,
                path.clone(),
                value.decode()?,
                positional,
            ));
        }
    }
    Ok(())
}

/// Refuses a save whose changes write the `_id` of a stored document
/// (MongoDB refuses to change it): most likely a change of kind whose new
/// variant was given a new id. [`Error::Validation`] on `_id`, before
/// anything is sent.
pub(crate) fn check_id(changes: &[Change]) -> Result<()> {
    if changes.iter().any(|c| same_or_under(&c.path, "_id")) {
        return Err(Error::Validation(
            ValidationError::new(
                "_id",
                "the `_id` of a stored document cannot change (MongoDB refuses it): give a \
                 changed value, a new variant included, the id the document was loaded with",
            )
            .into(),
        ));
    }
    Ok(())
}

/// Adds the kind to the filter of a write (after `_id` and the shard
/// key).
pub(crate) fn add(filter: &mut Document, term: &KindTerm) {
    filter.insert(term.key, term.loaded);
}

/// `filter` restricted to documents of the kind `name`: `{key: name}`
/// added, or, when the filter already has a term on the key,
/// `{$and: [filter, {key: name}]}` (the caller's term still applies).
pub(crate) fn scoped(mut filter: Document, key: &str, name: &str) -> Document {
    if filter.is_empty() {
        return doc! { key: name };
    }
    if filter.contains_key(key) {
        return doc! { "$and": [filter, { key: name }] };
    }
    filter.insert(key, name);
    filter
}

/// Refuses a set-based write (`update_many`, `claim`, an upsert's update)
/// whose `update` writes the kind key, or a path under or above it: the
/// old kind's fields would stay beside the new kind. A change of kind is a
/// save of the `Doc` whose variant changed. `model` names the enum.
pub(crate) fn check_update(kinds: Option<Kinds>, update: &Document, model: &str) -> Result<()> {
    check_paths(kinds, crate::plan::update_ops::written_paths(update), model)
}

/// [`check_update`] on the paths `paths` a write sets (an upsert's `set`).
pub(crate) fn check_paths<'p>(
    kinds: Option<Kinds>,
    paths: impl IntoIterator<Item = &'p str>,
    model: &str,
) -> Result<()> {
    let Some(kinds) = kinds else {
        return Ok(());
    };
    for path in paths {
        if same_or_under(path, kinds.key) || same_or_under(kinds.key, path) {
            return Err(Error::Validation(
                ValidationError::new(
                    path,
                    format!(
                        "writes `{}`, the kind of `{model}`: a set-based write cannot change a \
                         document's kind (the old kind's fields would stay); load the `Doc`, \
                         give it the new variant and save it",
                        kinds.key
                    ),
                )
                .into(),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "kind_tests.rs"]
mod tests;
