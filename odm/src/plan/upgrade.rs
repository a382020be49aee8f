//! An upgrade on load is a change like any other: the rules that make the
//! next save of an upgraded document write it, under the version
//! contract.
//!
//! A document stored at an older schema version is upgraded in memory on
//! load (`codec::upgrade`), and the `Doc` tracks the upgraded document as
//! if it were stored, so the value's own changes are measured as usual.
//! What the upgrade changed is kept beside it ([`Upgrade`]): the stored
//! top-level fields it set or removed, and their values as stored. The
//! next save
//! - writes those fields as the upgrade left them (`$set` / `$unset`),
//!   or, where the value also changed a field, the field as the value
//!   holds it now ([`merge`]), plus the schema version (`$set: {__sv: N}`);
//! - carries the version effect of a rewrite of every field the upgrade
//!   touched (checked and bumped), and the rewrite guard of each: its
//!   stored value (or its absence) in the filter, as this copy read it;
//! - holds the stored schema version it read in the filter (`{__sv: v}`,
//!   or `{__sv: {$exists: false}}` for a document without one), as every
//!   save of a model with a schema version does ([`Terms`]).
//!
//! So whatever wrote the document after this copy read it (another
//! instance's upgrade, an edit of a field the upgrade rewrites, any bump)
//! makes the save match nothing: `Error::Version`, nothing written.

use mongodb::bson::raw::RawDocument;
use mongodb::bson::{doc, Bson, Document};

use crate::codec::keys::Hidden;
use crate::codec::scan::elements;
use crate::codec::scan::Keys;
use crate::error::{Error, MigrationError};
use crate::plan::diff::{lookup, Change, Op};
use crate::plan::guard::rewrite::Rewrite;
use crate::plan::update_ops;
use crate::plan::versioning::int;

/// What an upgrade on load changed of the stored document.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Upgrade {
    /// The schema version the document was stored at (0 without one).
    pub from: u32,
    /// The top-level fields the upgrade set (to the upgraded value) or
    /// removed, in the upgraded document's order, then the removed ones.
    pub changes: Vec<Change>,
    /// Each of those fields as stored: its value, or `None` when the
    /// stored document lacks it (the rewrite guards of the save).
    pub guards: Vec<Rewrite>,
}

/// What a `Doc` knows of its document's schema version.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SchemaState {
    /// The schema version as stored (`None`: the document has no schema
    /// version key, i.e. version 0; or it is new).
    pub stored: Option<i64>,
    /// An upgrade made on load and not saved yet.
    pub upgrade: Option<Box<Upgrade>>,
}

/// The schema version terms of a save of a model with a schema version.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Terms {
    /// The schema version key.
    pub key: &'static str,
    /// The schema version as this copy read it, which the filter holds
    /// (`$exists: false` when `None`).
    pub stored: Option<i64>,
    /// The version this save stores (the save of an upgrade).
    pub write: Option<u32>,
    /// The fields the save writes exactly as the upgrade left them: the
    /// tracked state (the upgraded document) already holds them as the
    /// store will after the save.
    pub kept: Vec<String>,
}

impl Terms {
    /// Adds the filter's term and the update's `$set` of the version.
    #[cfg(test)]
    pub(crate) fn add(&self, filter: &mut Document, update: &mut Document) {
        self.add_filter(filter);
        self.add_update(update);
    }

    /// Adds the filter's term: the schema version as stored.
    pub(crate) fn add_filter(&self, filter: &mut Document) {
        add_term(filter, self.key, stored_term(self.stored));
    }

    /// Adds the update's `$set` of the version an upgrade writes.
    pub(crate) fn add_update(&self, update: &mut Document) {
        if let Some(version) = self.write {
            update_ops::add(update, "$set", self.key, int(i64::from(version)));
        }
    }
}

/// The filter term that matches a document stored at `stored`: the value,
/// or `{$exists: false}` for a document without a schema version.
pub(crate) fn stored_term(stored: Option<i64>) -> Bson {
    match stored {
        Some(v) => int(v),
        None => Bson::Document(doc! { "$exists": false }),
    }
}

/// `filter` with `{key: term}`, in an `$and` when it already holds `key`.
pub(crate) fn add_term(filter: &mut Document, key: &str, term: Bson) {
    if !filter.contains_key(key) {
        filter.insert(key, term);
        return;
    }
    let and = filter
        .entry("$and".to_string())
        .or_insert_with(|| Bson::Array(Vec::new()));
    if let Bson::Array(terms) = and {
        terms.push(Bson::Document(doc! { key: term }));
    }
}

/// The refusal of a write of the schema version key by the caller (an
/// `update_many`, a claim, an upsert): odm stores it, and a document's
/// schema version moves only by its upgrade.
pub(crate) fn key_refused(key: &str) -> crate::error::ValidationError {
    crate::error::ValidationError::new(
        key,
        "is the schema version, which odm keeps: a document's schema version moves only by its \
         upgrade (the save of a document loaded at an older version, or `migrate_all`)",
    )
}

/// What the upgrade of `original` (the document as stored) into
/// `upgraded` changed: every top-level field of `upgraded` that
/// `original` lacks or holds otherwise (`$set`), then every one it
/// removed (`$unset`); odm's keys and `_id` aside. A field whose name no
/// update can write (empty, with a `.`, or starting with `$`) is refused
/// with [`Error::Migration`] naming the document (`collection`, `id`) and
/// step `from`.
pub(crate) fn upgrade(
    original: &RawDocument,
    upgraded: &RawDocument,
    hidden: Hidden,
    from: u32,
    (collection, id): (&str, &Bson),
) -> Result<Upgrade, Error> {
    let writable = |key: &str| -> Result<String, Error> {
        if key.is_empty() || key.starts_with('$') || key.contains('.') {
            return Err(Error::Migration(Box::new(
                MigrationError::new(format!(
                    "the upgraded document holds the field \"{key}\", which no update can write (empty, with a `.` or starting with `$`)"
                ))
                .at(collection, id, from),
            )));
        }
        Ok(key.to_string())
    };
    let before = elements(original.as_bytes())?;
    let after = elements(upgraded.as_bytes())?;
    let (old_keys, new_keys) = (Keys::new(&before), Keys::new(&after));
    let odm = |key: &[u8]| key == b"_id" || hidden.hides(key);
    let mut changes = Vec::new();
    let mut guards = Vec::new();
    for value in after.iter().filter(|e| !odm(e.key)) {
        let stored = old_keys.first(value.key).map(|i| &before[i]);
        if stored.is_some_and(|s| s.same(value)) {
            continue;
        }
        let key = writable(value.key_str()?)?;
        changes.push(Change::new(Op::Set, key.clone(), value.decode()?, false));
        guards.push((key, stored.map(|s| s.decode()).transpose()?));
    }
    for entry in before.iter().filter(|e| !odm(e.key)) {
        if new_keys.first(entry.key).is_none() {
            let key = writable(entry.key_str()?)?;
            changes.push(Change::new(
                Op::Unset,
                key.clone(),
                Bson::String(String::new()),
                false,
            ));
            guards.push((key, Some(entry.decode()?)));
        }
    }
    Ok(Upgrade {
        from,
        changes,
        guards,
    })
}

/// The changes of the save of an upgraded document: the upgrade's own
/// changes, except that a field the value also changed (`changes`, what
/// the value changed since the upgraded document) is written whole as the
/// value (`current`) holds it now, in place of both; then the value's
/// other changes. Also the fields written as the upgrade left them.
pub(crate) fn merge(
    upgrade: &[Change],
    changes: Vec<Change>,
    current: &RawDocument,
) -> Result<(Vec<Change>, Vec<String>), Error> {
    let touched = |field: &str| changes.iter().any(|c| c.field() == field);
    let mut out = Vec::with_capacity(upgrade.len() + changes.len());
    let mut kept = Vec::new();
    for u in upgrade {
        if !touched(&u.path) {
            kept.push(u.path.clone());
            out.push(u.clone());
            continue;
        }
        out.push(match lookup(current.as_bytes(), &u.path)? {
            Some((value, _)) => Change::new(Op::Set, u.path.clone(), value.decode()?, false),
            None => Change::new(
                Op::Unset,
                u.path.clone(),
                Bson::String(String::new()),
                false,
            ),
        });
    }
    let fields: Vec<&str> = upgrade.iter().map(|u| u.path.as_str()).collect();
    out.extend(changes.into_iter().filter(|c| !fields.contains(&c.field())));
    Ok((out, kept))
}

/// Whether `path` lies in a top-level field the upgrade rewrites.
pub(crate) fn rewrites(upgrade: &Upgrade, path: &str) -> bool {
    let field = path.split('.').next().unwrap_or(path);
    upgrade.changes.iter().any(|u| u.path == field)
}

#[cfg(test)]
#[path = "upgrade_tests.rs"]
mod tests;
