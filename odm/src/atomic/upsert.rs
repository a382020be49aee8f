//! `Model::upsert`: update the matching document, or insert it, in one
//! atomic `findOneAndUpdate`.

use mongodb::bson::Document as BsonDocument;
use mongodb::ClientSession;

use crate::error::{Error, Result, ValidationErrors};
use crate::lock::Lease;
use crate::model::doc::Doc;
use crate::model::execute_atomic::execute_atomic;
use crate::model::other_versions::{self, Stance};
use crate::model::Document;
use crate::model::Model;
use crate::plan::request::{find_modify, not_found, shard};
use crate::plan::update_ops::same_or_under;
use crate::wire::server_clock;
use crate::wire::session::{awaitable, BoxFuture};

/// A pending [`Model::upsert`]; add [`set`](Upsert::set),
/// [`set_on_insert`](Upsert::set_on_insert) and optionally a
/// [`session`](Upsert::session), then `.await` it.
#[must_use = "an upsert does nothing until it is awaited"]
pub struct Upsert<'a, T: Document> {
    pub(crate) model: &'a Model<T>,
    pub(crate) filter: BsonDocument,
    pub(crate) set: BsonDocument,
    pub(crate) set_on_insert: BsonDocument,
    pub(crate) session: Option<&'a mut ClientSession>,
    /// The token of a fenced upsert.
    pub(crate) fence: Option<i64>,
}

/// An upsert that applies the model's referential rules (`refs`), when
/// the model has them: see [`guard`](crate::model::guard).
pub(crate) type Guard<T> = for<'a> fn(Upsert<'a, T>) -> BoxFuture<'a, Result<Doc<T>>>;

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
    ///   [`Error::Version`](crate::Error::Version) instead of overwriting the upsert. The operator
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
    ///   `$setOnInsert: {createdAt: now}`, unless the update writes them,
    ///   or, for `createdAt`, the filter fixes it by equality
    ///   (`{createdAt: t}`, `{createdAt: {$eq: t}}`, also in a top-level
    ///   `$and`): an inserted document keeps the filter's value, so it
    ///   matches the filter it was inserted for and the next upsert of that
    ///   filter updates it instead of inserting another.
    ///
    /// On a model with `#[odm(shard_key(..))]`, two rules are checked
    /// before anything is sent, each failing with
    /// [`Error::ShardKey`](crate::Error::ShardKey) (its
    /// [`rule`](crate::ShardKeyError::rule) says which): the filter must
    /// fix every shard key field by equality, as MongoDB requires of an
    /// upsert on a sharded collection (so a model fails the same way on a
    /// replica set in development); and no `set` path may be at, under or
    /// above a shard key field, since on the update branch it would change
    /// a stored document's shard key, which no odm write does (a `set` of
    /// the value the filter already fixes is refused too: the filter alone
    /// gives it to an inserted document). A `set_on_insert` path at, under
    /// or above a shard key field is refused the same way, unless it
    /// writes that very field with the value the filter fixes (a document
    /// inserted under another key than the one the upsert was routed by
    /// would not match its own filter).
    ///
    /// The inserted document must deserialize into `T`: the filter's
    /// equality fields, `set` and `set_on_insert` together must hold every
    /// required field (and the `_id`, unless it is an `ObjectId` the server
    /// may generate), else the call returns [`Error::Deserialize`](crate::Error::Deserialize) after the
    /// write. Validators do not run (there is no value before the write).
    ///
    /// On a model with `schema_version`, the inserted document stores the
    /// model's schema version, and the pipeline changes a stored document
    /// only at the model's version (the filter cannot say so: a document
    /// it left out would be inserted again). A document at an older version
    /// is left as it is, loaded (which upgrades it), saved (the upgrade,
    /// under the save's version contract), and the upsert sent again; one
    /// at a newer version (a newer instance wrote it) is left as it is and
    /// the call fails with [`Error::Schema`](crate::Error::Schema).
    /// `set` / `set_on_insert` may not write the schema version key
    /// ([`Error::Validation`](crate::Error::Validation)).
    ///
    /// Races: with a unique index on the filtered field, two concurrent
    /// first upserts can both try the insert and one fails with a duplicate
    /// key (MongoDB retries some of these itself, not all). That loser's
    /// upsert is sent once more, which then finds and updates the winner's
    /// document, as the MongoDB manual advises. A second duplicate key, or
    /// one inside a session (where the failed write has aborted the
    /// transaction), is returned as [`Error::DuplicateKey`](crate::Error::DuplicateKey). Without a unique
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
    /// the upsert fails with [`Error::Fenced`](crate::Error::Fenced).
    ///
    /// The refused document no longer matches the filter, so the server
    /// tries to insert a new one: a unique index on the filter's fields
    /// (or an `_id` in the filter) must refuse that insert, which odm then
    /// reports as [`Error::Fenced`](crate::Error::Fenced). Without one, a stale holder's upsert
    /// inserts a second document.
    pub fn fenced(mut self, lease: &Lease) -> Self {
        self.fence = Some(lease.token());
        self
    }
}

awaitable! {
    impl['a, T: Document] Upsert<'a, T> => Result<Doc<T>>;
    /// Runs the upsert inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        match crate::model::guard::<T, Guard<T>>() {
            Some(guarded) => guarded(self).await,
            None => run(self).await,
        }
    }
}

/// The upsert, without the referential rules' step.
pub(crate) async fn run<T: Document>(upsert: Upsert<'_, T>) -> Result<Doc<T>> {
    let Upsert {
        model,
        filter,
        set,
        set_on_insert,
        session,
        fence,
    } = upsert;
    let shard_key = T::__odm_meta().shard_key;
    shard::check_upsert_filter(shard_key, &filter, model.name())?;
    shard::check_paths(shard_key, set.keys().map(String::as_str), model.name())?;
    let meta = T::__odm_meta();
    crate::plan::kind::check_paths(meta.kinds, set.keys().map(String::as_str), meta.name)?;
    shard::check_set_on_insert(shard_key, &set_on_insert, &filter, model.name())?;
    if let Some(schema) = meta.schema {
        let written = set.keys().chain(set_on_insert.keys());
        if let Some(path) = written.into_iter().find(|p| same_or_under(p, schema.key)) {
            let refused = crate::plan::upgrade::key_refused(path);
            return Err(Error::Validation(ValidationErrors::from(refused)));
        }
    }
    let now = server_clock::now::<T>(&model.database(), model.name()).await?;
    let request = find_modify::upsert::<T>(filter, set, set_on_insert, fence, now);
    let mut session = session;
    let mut conflict = None;
    for _ in 0..other_versions::ATTEMPTS {
        let Some(raw) = execute_atomic(model, &request, session.as_deref_mut()).await? else {
            // Still no document after the empty answers were sent again.
            return Err(not_found(model.name(), request.given));
        };
        match other_versions::stance::<T>(&raw) {
            Stance::Current => return model.track(raw),
            Stance::Newer(stored) => return Err(other_versions::refused(model, &raw, stored)),
            // Left untouched: upgraded first, then the upsert again.
            Stance::Older => {
                conflict = other_versions::upgrade(model, raw, session.as_deref_mut()).await?;
            }
        }
    }
    Err(conflict.unwrap_or_else(|| not_found(model.name(), request.given)))
}
