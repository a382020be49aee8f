//! The one read after a save that may have been refused as stale matched
//! nothing: the whole document, from the primary (inside the session if
//! given), which tells at once whether a fence refused the write, whether
//! the document still exists, and what the store changed since this copy
//! loaded it ([`VersionError::stored_changes`]). Only on that failure
//! path: a save that succeeds reads nothing more.

use mongodb::bson::raw::{RawBsonRef, RawDocumentBuf};
use mongodb::bson::Document as BsonDocument;
use mongodb::ClientSession;

use crate::codec::version_key::{self, FENCE};
use crate::error::{from_driver, Error, FencedError, Result, VersionError};
use crate::model::doc::Doc;
use crate::model::{Document, Model};
use crate::plan::conflict;
use crate::plan::request::write::Request;
use crate::wire::command_log::Command;
use crate::wire::session::send;

/// The error of `request` (a save of `doc`) having matched nothing, after
/// the one read of its document.
pub(crate) async fn missed<T: Document>(
    doc: &Doc<T>,
    request: &Request,
    session: Option<&mut ClientSession>,
) -> Result<Error> {
    let model = doc.model();
    let follow_up = &request.follow_up;
    let Some(target) = doc.target() else {
        return Ok(request.missed(model.name(), true));
    };
    let stored = match read_stored(model, target.clone(), session).await {
        Ok(stored) => stored,
        // The read was needed to tell a fence refusal or a deleted
        // document: its error is the save's, as before.
        Err(e) if follow_up.fence.is_some() || follow_up.exists.is_some() => return Err(e),
        // Only for the stored changes: the version error, without them.
        Err(_) => return Ok(request.missed(model.name(), true)),
    };
    if let (Some((_, token)), Some(stored)) = (&follow_up.fence, &stored) {
        if let Some(fence) = stored_fence(stored).filter(|fence| fence > token) {
            return Ok(Error::Fenced(Box::new(FencedError {
                collection: model.name().to_string(),
                filter: target,
                token: *token,
                stored: Some(fence),
            })));
        }
    }
    if let Some(found) = &stored {
        if let Some(refused) = crate::model::execute::refused_as_newer::<T>(model.name(), found)? {
            return Ok(refused);
        }
    }
    let exists = follow_up.exists.is_none() || stored.is_some();
    Ok(match request.missed(model.name(), exists) {
        Error::Version(e) => Error::Version(Box::new(explained(*e, doc, stored.as_ref()))),
        other => other,
    })
}

/// The fence a stored document holds (an integer of any width).
fn stored_fence(stored: &RawDocumentBuf) -> Option<i64> {
    match stored.get(FENCE).ok().flatten()? {
        RawBsonRef::Int32(n) => Some(n.into()),
        RawBsonRef::Int64(n) => Some(n),
        RawBsonRef::Double(n) if n.fract() == 0.0 => Some(n as i64),
        _ => None,
    }
}

/// `e` naming what the store changed since `doc` was loaded, from
/// `stored` (its document as read after the refusal; `None`: gone).
pub(crate) fn explained<T: Document>(
    e: VersionError,
    doc: &Doc<T>,
    stored: Option<&RawDocumentBuf>,
) -> VersionError {
    let (Some(stored), Some(loaded)) = (stored, doc.loaded_form()) else {
        return e;
    };
    // Compared as this model reads it: a document at an older schema
    // version upgraded first, as this copy's own loaded form was (else
    // every field the upgrade renamed would look changed by the store).
    let layout = crate::schema::layout::<T>();
    let upgraded = match layout.schema {
        Some(_) => crate::codec::load::<T>(stored.clone(), doc.model().name(), &layout)
            .ok()
            .map(|loaded| loaded.stored),
        None => None,
    };
    let now = version_key::hidden(upgraded.as_ref().unwrap_or(stored), layout.hidden);
    e.with_stored_changes(conflict::changed_paths(&loaded, &now))
}

/// The document stored as `target` (`{_id, shard key}`), whole, from the
/// primary: the freshest copy, as a fence is read.
pub(crate) async fn read_stored<T: Document>(
    model: &Model<T>,
    target: BsonDocument,
    session: Option<&mut ClientSession>,
) -> Result<Option<RawDocumentBuf>> {
    let primary = crate::wire::fence::collection(model.raw_collection());
    let log = Command::new(model.name(), "find").filter(&target);
    log.send(send(primary.find_one(target), session))
        .await
        .map_err(|e| from_driver(e, model.name()))
}
