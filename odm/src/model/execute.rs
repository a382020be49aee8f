//! The one step that runs a write's [`Request`]: send it (inside the
//! session if given, through the command log), on no match run its
//! follow-up reads and shape the error, classify a refusal through the one
//! classifier, and on success commit what it says into the `Doc`.
//! `save()` (insert, update, check) and `delete()` go through it.

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::ClientSession;

use crate::error::{complete_insert, from_driver, may_have_applied, Result};
use crate::model::doc::Doc;
use crate::model::{Document, Model};
use crate::plan::request::write::{Commit, Request, Send};
use crate::wire::command_log::Command;
use crate::wire::session::send;

/// Runs `request` for `doc`, inside `session` if given.
pub(crate) async fn execute<T: Document>(
    doc: &mut Doc<T>,
    mut request: Request,
    mut session: Option<&mut ClientSession>,
) -> Result<()> {
    let fence = request.fence;
    let matched = match &mut request.send {
        Send::Insert(stored) => {
            insert(doc.model(), stored, fence, session.as_deref_mut()).await?;
            1
        }
        Send::Update { filter, update } => {
            // In doubt until the server answers: a caller that stops
            // waiting may leave the update applied.
            let settled = std::mem::replace(&mut doc.in_doubt, true);
            // Both go to the driver; a miss builds the filter again.
            let filter = crate::codec::new_document::take(filter);
            let update = crate::codec::new_document::take(update);
            let sent = update_one(doc.model(), filter, update, fence, session.as_deref_mut());
            match sent.await {
                Ok(matched) => {
                    doc.in_doubt = settled;
                    matched
                }
                Err(e) => {
                    doc.in_doubt = settled || may_have_applied(&e);
                    return Err(from_driver(e, doc.model().name()));
                }
            }
        }
        Send::Check(filter) => u64::from(
            probe(doc.model(), filter, session.as_deref_mut())
                .await?
                .is_some(),
        ),
        Send::Delete(filter) => delete_one(doc.model(), filter, session.as_deref_mut()).await?,
    };
    if matched == 0 {
        if let Some(target) = doc.target() {
            request.refill_filter::<T>(target);
        }
        return Err(missed(doc, &request, session).await?);
    }
    match request.commit {
        Commit::Saved { id, plan, inserted } => doc.commit(id, plan, inserted),
        Commit::Deleted => doc.mark_deleted(),
    }
    Ok(())
}

/// The error of `request` having matched nothing, after its follow-up
/// reads.
async fn missed<T: Document>(
    doc: &Doc<T>,
    request: &Request,
    mut session: Option<&mut ClientSession>,
) -> Result<crate::Error> {
    if request.follow_up.stored && request.may_be_stale() {
        return crate::model::refused::missed(doc, request, session).await;
    }
    let model = doc.model();
    let follow_up = &request.follow_up;
    if let Some((target, token)) = &follow_up.fence {
        let collection = model.raw_collection();
        let refused =
            crate::wire::fence::refusal(collection, target.clone(), *token, session.as_deref_mut());
        if let Some(e) = refused.await? {
            return Ok(e);
        }
    }
    let exists = match &follow_up.exists {
        Some(target) => match probe(model, target, session).await? {
            Some(found) => match refused_as_newer::<T>(model.name(), &found)? {
                Some(refused) => return Ok(refused),
                None => true,
            },
            None => false,
        },
        None => true,
    };
    Ok(request.missed(model.name(), exists))
}

async fn insert<T: Document>(
    model: &Model<T>,
    stored: &mongodb::bson::raw::RawDocumentBuf,
    fence: Option<i64>,
    session: Option<&mut ClientSession>,
) -> Result<()> {
    let log = Command::new(model.name(), "insert").update(stored.as_ref());
    let fenced = fence.map(|_| crate::wire::fence::collection(model.raw_collection()));
    let action = fenced
        .as_ref()
        .unwrap_or(model.raw_collection())
        .insert_one(stored);
    log.send(send(action, session)).await.map_err(|e| {
        let e = from_driver(e, model.name());
        complete_insert(e, |name| T::__odm_meta().index_keys(name), stored)
    })?;
    Ok(())
}

async fn update_one<T: Document>(
    model: &Model<T>,
    filter: BsonDocument,
    update: BsonDocument,
    fence: Option<i64>,
    session: Option<&mut ClientSession>,
) -> mongodb::error::Result<u64> {
    let log = Command::new(model.name(), "update")
        .filter(&filter)
        .update(&update);
    let fenced = fence.map(|_| crate::wire::fence::collection(model.raw_collection()));
    let action = match &fenced {
        Some(fenced) => fenced.update_one(filter, update),
        None => model.collection().update_one(filter, update),
    };
    Ok(log.send(send(action, session)).await?.matched_count)
}

async fn delete_one<T: Document>(
    model: &Model<T>,
    filter: &BsonDocument,
    session: Option<&mut ClientSession>,
) -> Result<u64> {
    let log = Command::new(model.name(), "delete").filter(filter);
    let action = model.collection().delete_one(filter.clone());
    let result = log
        .send(send(action, session))
        .await
        .map_err(|e| from_driver(e, model.name()))?;
    Ok(result.deleted_count)
}

/// The document matching `filter` (its `_id`, and its schema version for
/// a model with one), read inside `session` if given.
async fn probe<T: Document>(
    model: &Model<T>,
    filter: &BsonDocument,
    session: Option<&mut ClientSession>,
) -> Result<Option<RawDocumentBuf>> {
    let log = Command::new(model.name(), "find").filter(filter);
    let mut projection = doc! { "_id": 1 };
    if let Some(schema) = T::__odm_meta().schema {
        projection.insert(schema.key, 1);
    }
    let action = model
        .raw_collection()
        .find_one(filter.clone())
        .projection(projection);
    log.send(send(action, session))
        .await
        .map_err(|e| from_driver(e, model.name()))
}

/// The schema version `found` is stored at, when it is above the model's.
pub(crate) fn newer_schema<T: Document>(found: &RawDocumentBuf) -> Option<i64> {
    let schema = T::__odm_meta().schema?;
    let stored = crate::codec::upgrade::read(found, schema.key).ok()??;
    (stored > i64::from(schema.current)).then_some(stored)
}

/// [`Error::Schema`] for `found` when a newer instance upgraded it since
/// this copy read it (its schema version is above the model's): not this
/// model's to write, whatever else changed. `Ok(None)` otherwise.
pub(crate) fn refused_as_newer<T: Document>(
    collection: &str,
    found: &RawDocumentBuf,
) -> Result<Option<crate::Error>> {
    let Some(stored) = newer_schema::<T>(found) else {
        return Ok(None);
    };
    let id = crate::codec::read_id(found)?;
    Ok(Some(crate::model::save::schema_refused::<T>(
        collection, id, stored,
    )))
}
