//! What the atomic writes of a model with a schema version (`upsert`,
//! `claim`) do with a document stored at another schema version, which
//! their filter or pipeline leaves untouched: an older one is upgraded
//! first (loaded, which upgrades it in memory, and saved, under the save's
//! version contract), then the write is sent again; a newer one is refused
//! with [`Error::Schema`] (a newer instance wrote it).

use mongodb::bson::raw::RawDocument;
use mongodb::bson::raw::RawDocumentBuf;
use mongodb::ClientSession;

use crate::error::{Error, Result};
use crate::model::{Document, Model};

/// How often an atomic write is sent again after upgrading the older
/// document it met (each time, another writer changed the document
/// between the upgrade and the write).
pub(crate) const ATTEMPTS: usize = 8;

/// A document's schema version against the model's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stance {
    /// At the model's version (or the model has none).
    Current,
    /// Below it: upgraded on load, then written.
    Older,
    /// Above it, at this version: never written by this model.
    Newer(i64),
}

/// Where `found` (a stored document, or its `_id` and schema version
/// key) stands. A malformed schema version counts as current: loading the
/// document reports it.
pub(crate) fn stance<T: Document>(found: &RawDocument) -> Stance {
    let Some(schema) = T::__odm_meta().schema else {
        return Stance::Current;
    };
    match crate::codec::upgrade::read(found, schema.key) {
        Ok(stored) => match crate::codec::upgrade::at(stored) {
            at if at < schema.current => Stance::Older,
            at if at > schema.current => Stance::Newer(stored.unwrap_or(0)),
            _ => Stance::Current,
        },
        Err(_) => Stance::Current,
    }
}

/// [`Error::Schema`] for `found`, stored at `stored`.
pub(crate) fn refused<T: Document>(model: &Model<T>, found: &RawDocument, stored: i64) -> Error {
    let id = crate::codec::read_id(found).unwrap_or(mongodb::bson::Bson::Null);
    crate::model::save::schema_refused::<T>(model.name(), id, stored)
}

/// Upgrades `stored` (a whole document at an older schema version): loads
/// it, which upgrades it in memory, and saves the upgrade. A save that
/// another writer got ahead of (`Error::Version`, `Error::NotFound`) is
/// no failure here: the caller sends its write again and meets the
/// document as it is now; that error is returned as `Ok(Some(..))` for the
/// caller to report if it gives up.
pub(crate) async fn upgrade<T: Document>(
    model: &Model<T>,
    stored: RawDocumentBuf,
    session: Option<&mut ClientSession>,
) -> Result<Option<Error>> {
    let mut doc = model.track(stored)?;
    if doc.migrated_from().is_none() {
        return Ok(None);
    }
    match crate::wire::session::send(doc.save(), session).await {
        Ok(()) => Ok(None),
        Err(e @ (Error::Version(_) | Error::NotFound(_))) => Ok(Some(e)),
        Err(e) => Err(e),
    }
}
