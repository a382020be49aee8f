//! `Model::claim`: one atomic conditional update that only one caller wins.

use mongodb::action::Action;
use mongodb::bson::{Bson, DateTime, Document as BsonDocument};
use mongodb::options::ReturnDocument;
use mongodb::ClientSession;

use crate::error::{from_driver, Result};
use crate::lock::Lease;
use crate::model::doc::Doc;
use crate::model::Document;
use crate::model::Model;
use crate::plan::timestamps;
use crate::plan::update_ops;
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;

/// A pending [`Model::claim`]; optionally [`sort`](Claim::sort) and
/// [`session`](Claim::session), then `.await` it.
#[must_use = "a claim does nothing until it is awaited"]
pub struct Claim<'a, T: Document> {
    model: &'a Model<T>,
    filter: BsonDocument,
    update: BsonDocument,
    sort: Option<BsonDocument>,
    session: Option<&'a mut ClientSession>,
    /// The token of a fenced claim.
    fence: Option<i64>,
}

impl<T: Document> Model<T> {
    /// Applies `update` to one document matching `filter`, atomically
    /// (`findOneAndUpdate`), and returns it as the update left it; `None`
    /// when nothing matched, i.e. someone else got there first.
    ///
    /// The pattern: put the guarded field in the filter and change it in the
    /// update. Many workers may run the same claim at once; the server
    /// applies each update to a document that still matches the filter, so
    /// each document is claimed by exactly one of them, and only the caller
    /// that got `Some` runs the task.
    ///
    /// ```no_run
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # struct Task { #[serde(rename = "_id")] id: ObjectId, state: String, owner: Option<String> }
    /// # async fn run(tasks: Model<Task>) -> odm::Result<()> {
    /// while let Some(task) = tasks
    ///     .claim(
    ///         doc! { "state": "pending" },                           // the guard
    ///         doc! { "$set": { "state": "running", "owner": "worker-1" } },
    ///     )
    ///     .sort(doc! { "_id": 1 })
    ///     .await?
    /// {
    ///     // only this worker runs `task`
    /// #   let _ = task;
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// `update` is an update with operators (`$set`, `$inc`, ...). Unlike
    /// Mongoose's `findOneAndUpdate`, a claim on a versioned model also
    /// sends `$inc: {<version key>: 1}` (unless `update` writes the key
    /// itself): it changes the document outside a tracked save, so a tracked
    /// copy loaded before it fails its next version-checked save with
    /// [`Error::Version`](crate::Error::Version) instead of overwriting the
    /// claim. The returned `Doc` carries the new version. With
    /// `#[odm(timestamps)]` the update also sets `updatedAt`.
    ///
    /// A claim that fails with a lost connection or a write concern error
    /// may have landed: the document is then claimed, but the caller got an
    /// error, and the same claim again gets `None` (the guard no longer
    /// matches). Write the worker's id in the update and retry with a
    /// filter that also matches the worker's own claim (`{$or: [{state:
    /// "pending"}, {owner: <me>}]}`) to find it again.
    pub fn claim(
        &self,
        filter: impl Into<BsonDocument>,
        update: impl Into<BsonDocument>,
    ) -> Claim<'_, T> {
        Claim {
            model: self,
            filter: filter.into(),
            update: update.into(),
            sort: None,
            session: None,
            fence: None,
        }
    }
}

impl<'a, T: Document> Claim<'a, T> {
    /// Which matching document to take first, e.g. `doc! { "priority": -1 }`.
    pub fn sort(mut self, sort: impl Into<BsonDocument>) -> Self {
        self.sort = Some(sort.into());
        self
    }
}

impl<'a, T: Document> Claim<'a, T> {
    /// Makes this a fenced write under `lease` (see
    /// [`Save::fenced`](crate::Save::fenced)): a document matches only if
    /// its stored fence (`__fence`) is absent or not larger than
    /// [`lease.token()`](Lease::token), and the claim stores the token.
    /// When nothing matched because a document of the filter holds a
    /// larger token, the claim fails with [`Error::Fenced`](crate::Error::Fenced) (changing
    /// nothing) instead of returning `None`.
    pub fn fenced(mut self, lease: &Lease) -> Self {
        self.fence = Some(lease.token());
        self
    }
}

/// `update` plus the version bump and the `updated_at` stamp.
pub(crate) fn claim_update<T: Document>(mut update: BsonDocument, now: DateTime) -> BsonDocument {
    timestamps::stamp_update::<T>(&mut update, false, now);
    if let Some(key) = T::__odm_meta().versioning.key {
        if !update_ops::touches(&update, key) {
            update_ops::add(&mut update, "$inc", key, Bson::Int32(1));
        }
    }
    update
}

awaitable! {
    impl['a, T: Document] Claim<'a, T> => Result<Option<Doc<T>>>;
    /// Runs the claim inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        let Claim {
            model,
            filter,
            update,
            sort,
            mut session,
            fence,
        } = self;
        let now = crate::wire::server_clock::now::<T>(&model.database(), model.name()).await?;
        let mut update = claim_update::<T>(update, now);
        let sent = match fence {
            Some(token) => {
                crate::plan::request::fence::stamp(&mut update, token);
                crate::plan::request::fence::filter(filter.clone(), token)
            }
            None => filter.clone(),
        };
        let log = Command::new(model.name(), "findAndModify")
            .filter(&sent)
            .update(&update);
        // A fenced claim states write concern majority (see `fence::options`).
        let fenced = fence.map(|_| crate::wire::fence::collection(model.raw_collection()));
        let action = fenced
            .as_ref()
            .unwrap_or(model.raw_collection())
            .find_one_and_update(sent, update)
            .return_document(ReturnDocument::After)
            .optional(sort, |a, sort| a.sort(sort));
        let result = log.send(crate::wire::session::send(action, session.as_deref_mut()));
        match (
            result.await.map_err(|e| from_driver(e, model.name()))?,
            fence,
        ) {
            (Some(raw), _) => Ok(Some(model.track(raw)?)),
            (None, None) => Ok(None),
            (None, Some(token)) => {
                let collection = model.raw_collection();
                match crate::wire::fence::refusal(collection, filter, token, session).await? {
                    Some(fenced) => Err(fenced),
                    None => Ok(None),
                }
            }
        }
    }
}
