//! `Model::claim`: one atomic conditional update that only one caller wins.

use mongodb::action::Action;
use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::ClientSession;

use crate::error::{from_driver, Error, Result, ValidationErrors};
use crate::lock::Lease;
use crate::model::doc::Doc;
use crate::model::execute_atomic::execute_atomic;
use crate::model::other_versions::{self, Stance};
use crate::model::Document;
use crate::model::Model;
use crate::plan::request::{find_modify, shard};
use crate::plan::update_ops;
use crate::wire::command_log::Command;
use crate::wire::server_clock;
use crate::wire::session::{awaitable, BoxFuture};

/// A pending [`Model::claim`]; optionally [`sort`](Claim::sort) and
/// [`session`](Claim::session), then `.await` it.
#[must_use = "a claim does nothing until it is awaited"]
pub struct Claim<'a, T: Document> {
    pub(crate) model: &'a Model<T>,
    pub(crate) filter: BsonDocument,
    pub(crate) update: BsonDocument,
    pub(crate) sort: Option<BsonDocument>,
    pub(crate) session: Option<&'a mut ClientSession>,
    /// The token of a fenced claim.
    pub(crate) fence: Option<i64>,
}

/// A claim that applies the model's referential rules (`refs`), when the
/// model has them: see [`guard`](crate::model::guard).
pub(crate) type Guard<T> = for<'a> fn(Claim<'a, T>) -> BoxFuture<'a, Result<Option<Doc<T>>>>;

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
    /// On a model with `#[odm(shard_key(..))]`, an `update` that writes at,
    /// under or above a shard key field fails with
    /// [`Error::ShardKey`](crate::Error::ShardKey) before anything is sent,
    /// as a save that changes the shard key does.
    ///
    /// On a model with `schema_version`, the filter sent also requires the
    /// model's schema version, so the claim never changes a document at
    /// another one. When it matches nothing, one more read looks for a
    /// document of the filter at another version: an older one is loaded
    /// (which upgrades it) and saved, and the claim sent again; a newer one
    /// (a newer instance wrote it) fails the claim with
    /// [`Error::Schema`](crate::Error::Schema), nothing changed. `update`
    /// may not write the schema version key
    /// ([`Error::Validation`](crate::Error::Validation)).
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

awaitable! {
    impl['a, T: Document] Claim<'a, T> => Result<Option<Doc<T>>>;
    /// Runs the claim inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        match crate::model::guard::<T, Guard<T>>() {
            Some(guarded) => guarded(self).await,
            None => run(self).await,
        }
    }
}

/// The claim, without the referential rules' step. For a model with a
/// schema version, a document of the filter stored at another version is
/// upgraded (or refused, when newer) and claimed again.
pub(crate) async fn run<T: Document>(claim: Claim<'_, T>) -> Result<Option<Doc<T>>> {
    let Claim {
        model,
        filter,
        update,
        sort,
        session,
        fence,
    } = claim;
    let meta = T::__odm_meta();
    shard::check_update(meta.shard_key, &update, model.name())?;
    crate::plan::kind::check_update(meta.kinds, &update, meta.name)?;
    if let Some(schema) = meta.schema {
        if update_ops::touches(&update, schema.key) {
            let refused = crate::plan::upgrade::key_refused(schema.key);
            return Err(Error::Validation(ValidationErrors::from(refused)));
        }
    }
    let now = server_clock::now::<T>(&model.database(), model.name()).await?;
    let request = find_modify::claim::<T>(filter, update, sort, fence, now);
    let mut session = session;
    let mut conflict = None;
    for _ in 0..other_versions::ATTEMPTS {
        let claimed = execute_atomic(model, &request, session.as_deref_mut()).await?;
        if let Some(raw) = claimed {
            return model.track(raw).map(Some);
        }
        let Some(other) = other_version(model, &request, session.as_deref_mut()).await? else {
            return Ok(None);
        };
        match other_versions::stance::<T>(&other) {
            Stance::Newer(stored) => return Err(other_versions::refused(model, &other, stored)),
            Stance::Older => {
                conflict = other_versions::upgrade(model, other, session.as_deref_mut()).await?;
            }
            // Upgraded by another writer meanwhile: claim again.
            Stance::Current => {}
        }
    }
    match conflict {
        Some(e) => Err(e),
        None => Ok(None),
    }
}

/// After a claim of a model with a schema version matched nothing: the
/// first document of the caller's filter (in the claim's order) stored at
/// another schema version, which the claim's filter left out; `None` for
/// a model without one, or when there is none.
async fn other_version<T: Document>(
    model: &Model<T>,
    request: &find_modify::FindModify,
    session: Option<&mut ClientSession>,
) -> Result<Option<RawDocumentBuf>> {
    let Some(schema) = T::__odm_meta().schema else {
        return Ok(None);
    };
    let at = crate::plan::versioning::int(i64::from(schema.current));
    let filter = doc! { "$and": [request.given.clone(), { schema.key: { "$ne": at } }] };
    let log = Command::new(model.name(), "find").filter(&filter);
    let action = model
        .raw_collection()
        .find_one(filter)
        .optional(request.sort.clone(), |a, sort| a.sort(sort));
    log.send(crate::wire::session::send(action, session))
        .await
        .map_err(|e| from_driver(e, model.name()))
}
