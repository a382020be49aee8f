//! [`ChangeEvent`]: one change of one document, typed.

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{Bson, DateTime, Document as BsonDocument, Timestamp};
use mongodb::change_stream::event::{ChangeStreamEvent, OperationType, UpdateDescription};

use super::token::ResumeToken;
use crate::codec;
use crate::error::{DeserializeError, Error, Result};
use crate::model::Document;

/// One event of a [`ChangeStream`](super::ChangeStream): an insert,
/// update, replace or delete of one document of the model's collection
/// (or a collection-wide event such as a drop or an invalidate).
///
/// Field names follow the driver's `ChangeStreamEvent`.
#[derive(Debug, PartialEq)]
#[non_exhaustive]
pub struct ChangeEvent<T> {
    /// What happened: [`OperationType::Insert`], `Update`, `Replace`,
    /// `Delete`, or a collection-wide `Drop`, `Rename`, `Invalidate`.
    pub operation_type: OperationType,
    /// The changed document's key: `{_id: ..}` (and the shard key on a
    /// sharded collection); `None` for collection-wide events.
    pub document_key: Option<BsonDocument>,
    /// The document as a `T`: after the insert or replace, and, for an
    /// update, as it was when the stream looked it up (with the default
    /// full-document lookup; `None` if it was deleted meanwhile). `None`
    /// for a delete.
    pub full_document: Option<T>,
    /// The version key of [`full_document`](ChangeEvent::full_document), as
    /// stored (`None` without one).
    pub version: Option<i64>,
    /// For an update: the fields it set and removed.
    pub update_description: Option<UpdateDescription>,
    /// When the change happened, in the server's cluster time.
    pub cluster_time: Option<Timestamp>,
    /// When the change happened, by the server's clock.
    pub wall_time: Option<DateTime>,
    token: ResumeToken,
}

impl<T> ChangeEvent<T> {
    /// The `_id` of the changed document (`None` for collection-wide
    /// events).
    pub fn id(&self) -> Option<&Bson> {
        self.document_key.as_ref()?.get("_id")
    }

    /// The token that resumes a stream right after this event.
    pub fn resume_token(&self) -> &ResumeToken {
        &self.token
    }
}

/// Reads one raw event of the stream on `ns` (collection `collection`):
/// the event itself, and its full document as a `T` (the version key
/// hidden from it, as in every load). A full document that does not load
/// is an [`Error::Deserialize`] naming its id and field.
pub(crate) fn parse<T: Document>(
    raw: &RawDocumentBuf,
    ns: &str,
    collection: &str,
) -> Result<ChangeEvent<T>> {
    let event: ChangeStreamEvent<RawDocumentBuf> = crate::bson_release::from_slice(raw.as_bytes())
        .map_err(|e| {
            Error::Deserialize(Box::new(DeserializeError {
                collection: collection.to_string(),
                id: Bson::Null,
                path: String::new(),
                message: format!("not a change event: {e}"),
            }))
        })?;
    let (full_document, version) = match event.full_document {
        Some(stored) => {
            let loaded = codec::load::<T>(stored, collection, &crate::schema::layout::<T>())?;
            (Some(loaded.value), loaded.version)
        }
        None => (None, None),
    };
    Ok(ChangeEvent {
        operation_type: event.operation_type,
        document_key: event.document_key,
        full_document,
        version,
        update_description: event.update_description,
        cluster_time: event.cluster_time,
        wall_time: event.wall_time,
        token: ResumeToken::new(ns.to_string(), event.id),
    })
}
