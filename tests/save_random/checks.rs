//! Stored == memory: the single-copy checks after a save (loaded fresh,
//! bit for bit, the version, nothing pending), as failures of a history
//! and as assertions of the hand-picked cases.

use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;

use crate::save_random::common::bson::to_document;
use crate::save_random::compare::{as_i64, diff_path, kind_path, same, same_doc};
use crate::save_random::history::{Ctx, Failure};
use crate::save_random::shapes::Shape;
use crate::save_random::show::{err_kind, sd, short, show_changes};

pub const VERSION_KEY: &str = "__v";
/// The schema version key (a shape with `schema_version`).
pub const SCHEMA_KEY: &str = "__sv";

pub fn ser<S: Shape>(v: &S) -> BsonDocument {
    to_document(v).expect("the value serializes")
}

pub async fn raw_stored<S: Shape>(model: &Model<S>, id: &Bson) -> Option<BsonDocument> {
    model
        .collection()
        .find_one(doc! { "_id": id.clone() })
        .await
        .expect("raw find_one")
}

/// Loads the stored document into the model, or explains why it cannot.
pub async fn load<S: Shape>(
    cx: &Ctx,
    model: &Model<S>,
    id: &Bson,
    who: &str,
) -> Result<Doc<S>, Failure> {
    match model.find_by_id(id.clone()).await {
        Ok(Some(d)) => Ok(d),
        Ok(None) => Err(cx.fail(format!("{who}: the stored document is gone"), "")),
        Err(e) => {
            let raw = raw_stored(model, id).await;
            Err(cx.fail(
                format!(
                    "{who}: the stored document no longer loads ({})",
                    err_kind(&e)
                ),
                format!(
                    "error: {}\n  stored: {}",
                    short(e),
                    raw.map_or("(none)".into(), |r| sd(&r))
                ),
            ))
        }
    }
}

/// A top-level field of the raw stored document that is not exactly the
/// one of `value` (the document as loaded and serialized again): a partial
/// sub-document that still loads because its missing fields are `Option`s.
/// (Fields missing from the store are fine: `#[serde(default)]`.)
pub fn partial_field<'a>(raw: &'a BsonDocument, value: &BsonDocument) -> Option<&'a str> {
    raw.iter()
        .find(|(k, v)| {
            *k != VERSION_KEY && *k != SCHEMA_KEY && !value.get(*k).is_some_and(|m| same(m, v))
        })
        .map(|(k, _)| k.as_str())
}

/// The single-copy checks after `doc` saved; returns the raw stored document.
pub async fn check_saved<S: Shape>(
    cx: &Ctx,
    model: &Model<S>,
    id: &Bson,
    doc: &Doc<S>,
    who: &str,
) -> Result<BsonDocument, Failure> {
    let mem = ser(&**doc);
    let Some(raw) = raw_stored(model, id).await else {
        return Err(cx.fail(format!("{who}: the document is gone after its save"), ""));
    };
    let both = || format!("memory: {}\n  stored: {}", sd(&mem), sd(&raw));
    let fresh = ser(&*load(cx, model, id, &format!("{who} after its save")).await?);
    if let Some(p) = diff_path(
        Some(&Bson::Document(fresh.clone())),
        Some(&Bson::Document(mem.clone())),
        "",
    ) {
        return Err(cx.fail(
            format!("{who}: stored != memory after save [{}]", kind_path(&p)),
            format!(
                "first difference at {p}\n  {}\n  loaded: {}",
                both(),
                sd(&fresh)
            ),
        ));
    }
    if let Some(k) = partial_field(&raw, &mem) {
        return Err(cx.fail(
            format!("{who}: a stored field differs from memory [{k:?}]"),
            both(),
        ));
    }
    if let Some(v) = raw
        .get(VERSION_KEY)
        .filter(|v| !matches!(v, Bson::Int32(_)))
    {
        return Err(cx.fail(
            format!("{who}: the stored version is no longer an Int32"),
            format!("stored {v:?}\n  {}", both()),
        ));
    }
    if let Some(schema) = doc.schema_version() {
        let stored = as_i64(raw.get(SCHEMA_KEY));
        if stored != Some(schema) || doc.migrated_from().is_some() {
            return Err(cx.fail(
                format!("{who}: the stored schema version is not the Doc's after its save"),
                format!(
                    "stored {stored:?}, schema_version() {schema}, migrated_from() {:?}\n  {}",
                    doc.migrated_from(),
                    both()
                ),
            ));
        }
    }
    let stored_version = as_i64(raw.get(VERSION_KEY));
    if stored_version != doc.version() {
        return Err(cx.fail(
            format!("{who}: stored version != version()"),
            format!(
                "stored {stored_version:?}, version() {:?}\n  {}",
                doc.version(),
                both()
            ),
        ));
    }
    if let Some(c) = doc.changes() {
        return Err(cx.fail(
            format!("{who}: changes() is not None right after a successful save"),
            format!("changes: {}\n  {}", show_changes(&Some(c)), both()),
        ));
    }
    Ok(raw)
}

/// Stored (loaded fresh) equals memory, bit for bit, and the versions agree.
pub async fn assert_stored_is_memory<S: Shape>(model: &Model<S>, doc: &Doc<S>, what: &str) {
    let id = doc.id().expect("an id");
    let raw = raw_stored(model, &id).await.expect("stored");
    let fresh = model
        .find_by_id(id.clone())
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{what}: the stored document no longer loads: {e}\n  stored: {}",
                sd(&raw)
            )
        })
        .expect("found");
    let (f, m) = (ser(&*fresh), ser(&**doc));
    assert!(
        same_doc(&f, &m),
        "{what}: stored != memory\n  memory: {}\n  stored: {}",
        sd(&m),
        sd(&raw)
    );
    assert_eq!(
        as_i64(raw.get(VERSION_KEY)),
        doc.version(),
        "{what}: version"
    );
}

/// After a save that changed an enum model's kind: every field of the
/// value is stored (none left to a `#[serde(default)]`), the save checked
/// and bumped the version, and its update unset every field it removed.
pub fn check_kind_change<S: Shape>(
    cx: &Ctx,
    changes: &Option<(BsonDocument, BsonDocument)>,
    raw: &BsonDocument,
    doc: &Doc<S>,
    who: &str,
) -> Result<(), Failure> {
    let (Some(key), Some((filter, update))) = (S::KIND_KEY, changes) else {
        return Ok(());
    };
    let changed = update
        .get_document("$set")
        .is_ok_and(|set| set.contains_key(key));
    if !changed {
        return Ok(());
    }
    let mem = ser(&**doc);
    if let Some(k) = mem.keys().find(|k| !raw.contains_key(*k)) {
        return Err(cx.fail(
            format!("{who}: a change of kind left a field of the new kind unstored [{k:?}]"),
            format!("memory: {}\n  stored: {}", sd(&mem), sd(raw)),
        ));
    }
    if !filter.contains_key(VERSION_KEY) || !update.contains_key("$inc") {
        return Err(cx.fail(
            format!("{who}: a change of kind did not check and bump the version"),
            show_changes(changes),
        ));
    }
    Ok(())
}
