//! A batch's conflicts, after its outcomes are told: what the store changed
//! under each stale `Doc` ([`VersionError::stored_changes`](crate::VersionError::stored_changes),
//! from one read of all of them at most, or none when the update command's
//! path already read their documents whole), and one conflict event per
//! stale, fenced or in-doubt `Doc` (`wire::conflict_log`). Only when some
//! `Doc` failed: a batch that lands reads and logs nothing more.

use std::collections::HashMap;

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::ClientSession;

use crate::error::{Error, Result};
use crate::model::doc::Doc;
use crate::model::refused::explained;
use crate::model::{Document, Model};
use crate::plan::request;
use crate::wire::conflict_log::{self, Site};

/// The targets (`{_id, shard key}`) of the `Doc`s `outcomes` already
/// tells stale: the read that settles a batch's other misses reads their
/// documents too.
pub(crate) fn stale_targets<T: Document>(
    docs: &[Doc<T>],
    outcomes: &[Option<Result<()>>],
) -> Vec<BsonDocument> {
    outcomes
        .iter()
        .zip(docs)
        .filter(|(o, _)| matches!(o, Some(Err(Error::Version(_)))))
        .filter_map(|(_, d)| Some(request::target(d.stored_id()?, d.shard())))
        .collect()
}

/// Names the stored changes in each version error of `outcomes`, from
/// `whole` (the documents the batch already read whole, if it did) and at
/// most one read of the stale `Doc`s' documents it lacks. A document that
/// is gone, or a read that fails, leaves them unnamed (`None`).
pub(crate) async fn explain<T: Document>(
    model: &Model<T>,
    docs: &[Doc<T>],
    outcomes: &mut [Option<Result<()>>],
    whole: Option<&Vec<BsonDocument>>,
    session: Option<&mut ClientSession>,
) {
    let stale: Vec<usize> = outcomes
        .iter()
        .enumerate()
        .filter(|(_, o)| matches!(o, Some(Err(Error::Version(e))) if e.stored_changes().is_none()))
        .map(|(i, _)| i)
        .collect();
    if stale.is_empty() {
        return;
    }
    let key = |d: &BsonDocument| d.get("_id").map(super::refuse::key);
    let mut by_id: HashMap<super::refuse::Key, BsonDocument> = HashMap::new();
    for d in whole.into_iter().flatten() {
        if let Some(k) = key(d) {
            by_id.entry(k).or_insert_with(|| d.clone());
        }
    }
    let id_of = |i: usize| docs[i].stored_id().map(super::refuse::key);
    let unread: Vec<BsonDocument> = stale
        .iter()
        .filter(|&&i| id_of(i).is_some_and(|k| !by_id.contains_key(&k)))
        .filter_map(|&i| Some(request::target(docs[i].stored_id()?, docs[i].shard())))
        .collect();
    if !unread.is_empty() {
        let filter = doc! { "$or": unread };
        // From the primary, as the read after a refused save.
        if let Ok(found) = super::read::read(model, filter, None, true, session).await {
            for d in found {
                if let Some(k) = key(&d) {
                    by_id.entry(k).or_insert(d);
                }
            }
        }
    }
    for i in stale {
        let stored = id_of(i)
            .and_then(|k| by_id.get(&k))
            .and_then(|d| RawDocumentBuf::try_from(d).ok());
        // Upgraded by a newer instance: refused as `save()` refuses it.
        let newer = stored
            .as_ref()
            .map(|found| crate::model::execute::refused_as_newer::<T>(model.name(), found));
        if let Some(Ok(Some(refused))) = newer {
            outcomes[i] = Some(Err(refused));
            continue;
        }
        if let Some(Some(Err(Error::Version(e)))) = outcomes.get_mut(i) {
            **e = explained((**e).clone(), &docs[i], stored.as_ref());
        }
    }
}

/// One conflict event per `Doc` of `outcomes` that failed as one.
pub(crate) fn report(site: Site<'_>, outcomes: &[Option<Result<()>>]) {
    for outcome in outcomes {
        if let Some(Err(e)) = outcome {
            conflict_log::failed(site, e);
        }
    }
}

/// One event per `Doc` whose statement was sent (`at[i]` is its place in
/// the batch, `usize::MAX` for none) when the whole batch failed with `e`,
/// if `e` leaves them in doubt.
pub(crate) fn in_doubt<T: Document>(site: Site<'_>, docs: &[Doc<T>], at: &[usize], e: &Error) {
    for _ in docs.iter().zip(at).filter(|(_, at)| **at != usize::MAX) {
        conflict_log::failed(site, e);
    }
}
