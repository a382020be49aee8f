//! A stored document at an older schema version, upgraded in memory to
//! the model's before it is decoded: the schema version read from its key
//! (`__sv` unless the model renames it; absent: version 0), then the
//! model's `migrate` run once per step, `from` to `from + 1`, on the
//! document as the value sees it (without odm's keys).
//!
//! Pure: nothing is written here. What the upgrade changed becomes part
//! of the next save (see `plan::upgrade`).

use mongodb::bson::raw::{RawDocument, RawDocumentBuf};
use mongodb::bson::{Bson, Document as BsonDocument};

use crate::codec::keys::Hidden;
use crate::codec::version_key;
use crate::error::{DeserializeError, Error, MigrationError};

/// One step of a model's `migrate`: upgrades a stored document from
/// schema version `from` to `from + 1`.
pub(crate) type Migrate = fn(&mut BsonDocument, u32) -> Result<(), MigrationError>;

/// A model's schema version, as `#[odm(schema_version = N, migrate =
/// path)]` declares it, with its steps.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Steps {
    /// The stored field holding a document's schema version (`__sv`
    /// unless `schema_key = ".."`).
    pub key: &'static str,
    /// The model's schema version (at least 1).
    pub current: u32,
    /// The step function.
    pub migrate: Migrate,
}

/// What the loader knows of a model's stored documents: the keys hidden
/// from the value, and the schema version they are upgraded to.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Layout {
    pub hidden: Hidden,
    pub schema: Option<Steps>,
}

impl Layout {
    /// Only a version key (no schema version).
    pub(crate) const fn version(key: Option<&'static str>) -> Layout {
        Layout {
            hidden: Hidden::version(key),
            schema: None,
        }
    }
}

/// The schema version stored under `key`: `None` when the document has
/// no such field (version 0). It must be a non-negative integer (an
/// integral double included) that fits a `u32`; anything else is refused
/// with a message saying what was found.
pub(crate) fn read(raw: &RawDocument, key: &str) -> Result<Option<i64>, String> {
    let version = match crate::codec::checked_read::counter(raw, key) {
        Some(version) => version,
        None => version_key::read_named(raw, Some(key), "the schema version key")?,
    };
    match version {
        Some(v) if v > i64::from(u32::MAX) => Err(format!(
            "the schema version key holds {v}, above the largest schema version ({})",
            u32::MAX
        )),
        other => Ok(other),
    }
}

/// The schema version of a document stored at `stored` (as [`read`]
/// returns it): 0 when absent.
pub(crate) fn at(stored: Option<i64>) -> u32 {
    stored.map_or(0, |v| u32::try_from(v).unwrap_or(u32::MAX))
}

/// [`read`] of `raw` for the model `schema`, refusing a malformed value
/// with [`Error::Deserialize`] naming the key.
pub(crate) fn read_checked(
    raw: &RawDocument,
    schema: &Steps,
    collection: &str,
) -> Result<Option<i64>, Error> {
    read(raw, schema.key).map_err(|message| {
        Error::Deserialize(Box::new(DeserializeError {
            collection: collection.to_string(),
            id: crate::codec::read_id(raw).unwrap_or(Bson::Null),
            path: schema.key.to_string(),
            message,
        }))
    })
}

/// The step to start from when a document stored at `stored` must be
/// upgraded to `schema`; `None` when it is at or above the model's version.
pub(crate) fn older(stored: Option<i64>, schema: &Steps) -> Option<u32> {
    let at = at(stored);
    (at < schema.current).then_some(at)
}

/// `raw` (whose `_id` is `id`) upgraded from schema version `from` to the
/// model's: the document without odm's keys (`hidden`), given to each
/// step in turn, then encoded. A step that fails, or that changes or
/// removes the `_id`, is [`Error::Migration`] naming the document and the
/// step. Keys a step adds under odm's names are dropped (they are odm's).
pub(crate) fn upgrade(
    raw: &RawDocument,
    schema: &Steps,
    hidden: Hidden,
    from: u32,
    collection: &str,
    id: &Bson,
) -> Result<RawDocumentBuf, Error> {
    let failed = |step: u32, message: String| {
        Error::Migration(Box::new(
            MigrationError::new(message).at(collection, id, step),
        ))
    };
    let seen = version_key::hidden(raw, hidden);
    let mut doc = BsonDocument::try_from(&*seen)
        .map_err(|e| failed(from, format!("the stored document cannot be read: {e}")))?;
    for step in from..schema.current {
        (schema.migrate)(&mut doc, step)
            .map_err(|e| Error::Migration(Box::new(e.at(collection, id, step))))?;
        if doc.get("_id") != Some(id) {
            return Err(failed(
                step,
                "the step changed or removed `_id`".to_string(),
            ));
        }
    }
    let odm: Vec<String> = doc
        .keys()
        .filter(|key| hidden.hides(key.as_bytes()))
        .cloned()
        .collect();
    for key in odm {
        doc.remove(&key);
    }
    RawDocumentBuf::try_from(&doc).map_err(|e| {
        failed(
            schema.current - 1,
            format!("the upgraded document cannot be encoded: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use mongodb::bson::{doc, rawdoc};

    use super::*;

    fn steps(doc: &mut BsonDocument, from: u32) -> Result<(), MigrationError> {
        match from {
            0 => {
                let mail = doc.remove("mail").ok_or(MigrationError::new("no `mail`"))?;
                doc.insert("email", mail);
            }
            1 => {
                let full = doc.remove("full_name").unwrap_or(Bson::Null);
                let full = full.as_str().unwrap_or_default().to_string();
                let (first, last) = full.split_once(' ').unwrap_or((&full, ""));
                doc.insert("name", doc! { "first": first, "last": last });
            }
            2 => {
                doc.insert("_id", 99);
            }
            _ => return Err(MigrationError::new(format!("no step from {from}"))),
        }
        Ok(())
    }

    const V2: Steps = Steps {
        key: "__sv",
        current: 2,
        migrate: steps,
    };

    const KEYS: Hidden = Hidden {
        version: Some("__v"),
        schema: Some("__sv"),
        kind: None,
    };

    #[test]
    fn reads_the_stored_version_and_refuses_what_is_not_one() {
        assert_eq!(read(&rawdoc! { "_id": 1 }, "__sv"), Ok(None));
        assert_eq!(read(&rawdoc! { "__sv": 2 }, "__sv"), Ok(Some(2)));
        assert_eq!(read(&rawdoc! { "__sv": 3.0 }, "__sv"), Ok(Some(3)));
        assert_eq!(
            read(&rawdoc! { "__sv": "2" }, "__sv").unwrap_err(),
            "the schema version key holds the string \"2\"; expected a non-negative integer (Int32, Int64, or an integral double)"
        );
        assert!(read(&rawdoc! { "__sv": 5_000_000_000_i64 }, "__sv")
            .unwrap_err()
            .contains("above the largest schema version"));
        let Err(Error::Deserialize(e)) =
            read_checked(&rawdoc! { "_id": 4, "__sv": -1 }, &V2, "users")
        else {
            panic!("accepted")
        };
        assert_eq!((e.path.as_str(), &e.id), ("__sv", &Bson::Int32(4)));
    }

    #[test]
    fn older_says_where_the_steps_start() {
        assert_eq!(older(None, &V2), Some(0));
        assert_eq!(older(Some(1), &V2), Some(1));
        assert_eq!(older(Some(2), &V2), None);
        assert_eq!(older(Some(7), &V2), None);
        assert_eq!(at(None), 0);
    }

    #[test]
    fn runs_each_step_on_the_document_without_odm_keys() {
        let stored = rawdoc! {
            "_id": 1, "mail": "a@b.c", "full_name": "Ann Lee", "__v": 3, "__fence": 9_i64,
        };
        let up = upgrade(&stored, &V2, KEYS, 0, "users", &Bson::Int32(1)).unwrap();
        assert_eq!(
            up,
            rawdoc! { "_id": 1, "email": "a@b.c", "name": { "first": "Ann", "last": "Lee" } }
        );
        // From version 1, only the second step runs.
        let stored = rawdoc! { "_id": 1, "email": "x", "full_name": "Bo", "__sv": 1 };
        let up = upgrade(&stored, &V2, KEYS, 1, "users", &Bson::Int32(1)).unwrap();
        assert_eq!(
            up,
            rawdoc! { "_id": 1, "email": "x", "name": { "first": "Bo", "last": "" } }
        );
    }

    #[test]
    fn a_failing_step_names_the_document_and_the_step() {
        let stored = rawdoc! { "_id": 7, "name": "no mail" };
        let Err(Error::Migration(e)) = upgrade(&stored, &V2, KEYS, 0, "users", &Bson::Int32(7))
        else {
            panic!("upgraded")
        };
        assert_eq!((e.from, e.message.as_str()), (0, "no `mail`"));
        assert_eq!(
            e.to_string(),
            "cannot upgrade document \"7\" of collection \"users\" from schema version 0 to 1: no `mail`; nothing was written"
        );
    }

    #[test]
    fn a_step_may_not_change_the_id() {
        let three = Steps { current: 3, ..V2 };
        let stored = rawdoc! { "_id": 1, "email": "x", "name": { "first": "A" }, "__sv": 2 };
        let Err(Error::Migration(e)) = upgrade(&stored, &three, KEYS, 2, "users", &Bson::Int32(1))
        else {
            panic!("upgraded")
        };
        assert_eq!(e.from, 2);
        assert!(e.message.contains("`_id`"), "{e}");
    }
}
