//! `Model::upsert`: update the matching document, or insert it, in one
//! atomic `findOneAndUpdate`.

use mongodb::bson::{Bson, DateTime, Document as BsonDocument};
use mongodb::options::{ReturnDocument, UpdateModifications};
use mongodb::ClientSession;

use super::upsert_pipeline;
use crate::error::{from_driver, Error, NotFoundError, Result};
use crate::lock::Lease;
use crate::model::doc::Doc;
use crate::model::Document;
use crate::model::Model;
use crate::plan::timestamps;
use crate::plan::update_ops;
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;

/// How often an upsert is sent again when the server answers "ok" without a
/// document (never on MongoDB; about 1% of contended upserts on SecantusDB).
const EMPTY_ANSWER_RETRIES: usize = 8;

/// A pending [`Model::upsert`]; add [`set`](Upsert::set),
/// [`set_on_insert`](Upsert::set_on_insert) and optionally a
/// [`session`](Upsert::session), then `.await` it.
#[must_use = "an upsert does nothing until it is awaited"]
pub struct Upsert<'a, T: Document> {
    model: &'a Model<T>,
    filter: BsonDocument,
    set: BsonDocument,
    set_on_insert: BsonDocument,
    session: Option<&'a mut ClientSession>,
    /// The token of a fenced upsert.
    fence: Option<i64>,
}

impl<T: Document> Model<T> {
    /// Updates the document matching `filter` with [`set`](Upsert::set), or
    /// inserts one built from the filter's equality fields, `set` and
    /// [`set_on_insert`](Upsert::set_on_insert), in one atomic
    /// `findOneAndUpdate` with `upsert: true`. Returns the document as this
    /// call's own update left it, tracked.
    ///
    /// This is the fix for "find, then insert or update", which races between
    /// instances: two callers that both find nothing both insert.
    ///
    /// ```no_run
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// #[odm(collection = "users", timestamps)]
    /// struct User {
    ///     #[serde(rename = "_id")]
    ///     id: ObjectId,
    ///     email: String,
    ///     visits: i64,
    ///     #[serde(rename = "createdAt")]
    ///     created_at: Option<odm::bson::DateTime>,
    ///     #[serde(rename = "updatedAt")]
    ///     updated_at: Option<odm::bson::DateTime>,
    /// }
    /// # async fn run(users: Model<User>) -> odm::Result<()> {
    /// let user = users
    ///     .upsert(doc! { "email": "a@b.c" })
    ///     .set(doc! { "lastSeen": "now" })
    ///     .set_on_insert(doc! { "visits": 0_i64 })
    ///     .await?;
    /// # Ok(()) }
    /// ```
    ///
    /// What the update holds besides `set` / `set_on_insert`:
    /// - On a versioned model, the version: an inserted document starts at
    ///   version 0 as with `save()`, and an updated one is bumped (unlike
    ///   Mongoose's `findOneAndUpdate`), so a tracked copy loaded before the
    ///   upsert fails its next version-checked save with
    ///   [`Error::Version`] instead of overwriting the upsert. The operator
    ///   form cannot do both (`$inc` and `$setOnInsert` of one path), so the
    ///   upsert is sent as an update pipeline that computes each field with
    ///   `$cond` on "inserted or updated"; its filter gets one more term,
    ///   `{__odm_upserting: null}`, which matches every stored document and
    ///   marks the inserted one while the pipeline runs (it is not stored).
    ///   The meaning of `set` / `set_on_insert` is the operator form's, but
    ///   for one case: a dotted path writes into an embedded document, so
    ///   `tags.3` on an array is refused by the server rather than setting
    ///   element 3. The filter never carries a version (a stale version
    ///   would insert a duplicate). An update that writes the version key
    ///   itself is sent in the operator form, as given.
    /// - With `#[odm(timestamps)]`: `$set: {updatedAt: now}` and
    ///   `$setOnInsert: {createdAt: now}`, unless the update writes them.
    ///
    /// The inserted document must deserialize into `T`: the filter's
    /// equality fields, `set` and `set_on_insert` together must hold every
    /// required field (and the `_id`, unless it is an `ObjectId` the server
    /// may generate), else the call returns [`Error::Deserialize`] after the
    /// write. Validators do not run (there is no value before the write).
    ///
    /// Races: with a unique index on the filtered field, two concurrent
    /// first upserts can both try the insert and one fails with a duplicate
    /// key (MongoDB retries some of these itself, not all). That loser's
    /// upsert is sent once more, which then finds and updates the winner's
    /// document, as the MongoDB manual advises. A second duplicate key, or
    /// one inside a session (where the failed write has aborted the
    /// transaction), is returned as [`Error::DuplicateKey`]. Without a unique
    /// index nothing stops two inserts: index the upsert's filter fields.
    pub fn upsert(&self, filter: impl Into<BsonDocument>) -> Upsert<'_, T> {
        Upsert {
            model: self,
            filter: filter.into(),
            set: BsonDocument::new(),
            set_on_insert: BsonDocument::new(),
            session: None,
            fence: None,
        }
    }
}

impl<'a, T: Document> Upsert<'a, T> {
    /// Fields written whether the document is inserted or updated (`$set`).
    /// Repeated calls add to it.
    pub fn set(mut self, fields: BsonDocument) -> Self {
        self.set.extend(fields);
        self
    }

    /// Fields written only when the document is inserted (`$setOnInsert`).
    /// Repeated calls add to it.
    pub fn set_on_insert(mut self, fields: BsonDocument) -> Self {
        self.set_on_insert.extend(fields);
        self
    }

    /// Makes this a fenced write under `lease` (see
    /// [`Save::fenced`](crate::Save::fenced)): an existing document is
    /// updated only if its stored fence (`__fence`) is absent or not
    /// larger than [`lease.token()`](Lease::token); the upsert stores the
    /// token. A document that holds a larger token is left unchanged and
    /// the upsert fails with [`Error::Fenced`].
    ///
    /// The refused document no longer matches the filter, so the server
    /// tries to insert a new one: a unique index on the filter's fields
    /// (or an `_id` in the filter) must refuse that insert, which odm then
    /// reports as [`Error::Fenced`]. Without one, a stale holder's upsert
    /// inserts a second document.
    pub fn fenced(mut self, lease: &Lease) -> Self {
        self.fence = Some(lease.token());
        self
    }

    /// What this upsert sends: the operator form, or on a versioned model
    /// the pipeline form that also bumps the version of an updated
    /// document (see `upsert_pipeline`).
    fn update(&self, now: DateTime) -> Sent {
        let mut update = BsonDocument::new();
        if !self.set.is_empty() {
            update.insert("$set", self.set.clone());
        }
        if !self.set_on_insert.is_empty() {
            update.insert("$setOnInsert", self.set_on_insert.clone());
        }
        timestamps::stamp_update::<T>(&mut update, true, now);
        if let Some(token) = self.fence {
            crate::plan::request::fence::stamp(&mut update, token);
        }
        match T::__odm_meta().versioning.key {
            Some(key) if !update_ops::touches(&update, key) => {
                let empty = BsonDocument::new();
                let part = |op: &str| match update.get(op) {
                    Some(Bson::Document(d)) => d.clone(),
                    _ => empty.clone(),
                };
                Sent::Pipeline(upsert_pipeline::pipeline(
                    &part("$set"),
                    &part("$setOnInsert"),
                    Some(key),
                ))
            }
            _ => Sent::Operators(update),
        }
    }
}

/// The update an upsert sends.
#[derive(Clone)]
enum Sent {
    /// `$set` + `$setOnInsert`: an unversioned model, or an update that
    /// writes the version key itself.
    Operators(BsonDocument),
    /// The pipeline that bumps the version on update and stores 0 on insert.
    Pipeline(Vec<BsonDocument>),
}

awaitable! {
    impl['a, T: Document] Upsert<'a, T> => Result<Doc<T>>;
    /// Runs the upsert inside `session` (and its transaction, if one is open).
    session;
    into_future(self) run(self)
}

async fn run<T: Document>(upsert: Upsert<'_, T>) -> Result<Doc<T>> {
    let now =
        crate::wire::server_clock::now::<T>(&upsert.model.database(), upsert.model.name()).await?;
    let update = upsert.update(now);
    let Upsert {
        model,
        filter,
        mut session,
        fence,
        ..
    } = upsert;
    let mut sent = match fence {
        Some(token) => crate::plan::request::fence::filter(filter.clone(), token),
        None => filter.clone(),
    };
    if matches!(update, Sent::Pipeline(_)) {
        sent = upsert_pipeline::filter(sent);
    }
    let mut duplicate_retried = false;
    let mut empty_answers = 0;
    // A fenced upsert states write concern majority (see `fence::options`).
    let fenced = fence.map(|_| crate::wire::fence::collection(model.raw_collection()));
    let collection = fenced.as_ref().unwrap_or(model.raw_collection());
    loop {
        let log = Command::new(model.name(), "findAndModify").filter(&sent);
        let (log, modifications): (_, UpdateModifications) = match &update {
            Sent::Operators(u) => (log.update(u), u.clone().into()),
            Sent::Pipeline(p) => (log.update(p.as_slice()), p.clone().into()),
        };
        let action = collection
            .find_one_and_update(sent.clone(), modifications)
            .upsert(true)
            .return_document(ReturnDocument::After);
        let result = log.send(crate::wire::session::send(action, session.as_deref_mut()));
        match result.await {
            Ok(Some(raw)) => return model.track(raw),
            Ok(None) if empty_answers < EMPTY_ANSWER_RETRIES => empty_answers += 1,
            Ok(None) => {
                return Err(Error::NotFound(Box::new(NotFoundError {
                    collection: model.name().to_string(),
                    filter,
                })))
            }
            Err(e) => match (from_driver(e, model.name()), fence) {
                (Error::DuplicateKey(e), Some(token)) => {
                    // The refused document no longer matched, so the server
                    // tried an insert: report the refusal. Read outside the
                    // session, whose transaction the failed write aborted.
                    let collection = model.raw_collection();
                    match crate::wire::fence::refusal(collection, filter.clone(), token, None)
                        .await?
                    {
                        Some(fenced) => return Err(fenced),
                        None if !duplicate_retried && session.is_none() => duplicate_retried = true,
                        None => return Err(Error::DuplicateKey(e)),
                    }
                }
                (Error::DuplicateKey(_), None) if !duplicate_retried && session.is_none() => {
                    duplicate_retried = true;
                }
                (e, _) => return Err(e),
            },
        }
    }
}
