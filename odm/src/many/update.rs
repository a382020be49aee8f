//! `Model::update_many`: one `update` command on a filter, versioned,
//! stamped and checked like a save where it can be.

use mongodb::bson::Document as BsonDocument;
use mongodb::ClientSession;

use super::plan;
use super::report::UpdateReport;
use crate::error::Result;
use crate::model::Document;
use crate::model::Model;
use crate::wire::command_log::Command;
use crate::wire::session::{awaitable, BoxFuture};

/// A pending [`Model::update_many`]; optionally
/// [`keep_version`](UpdateMany::keep_version) and
/// [`session`](UpdateMany::session), then `.await` it.
#[must_use = "nothing is updated until it is awaited"]
pub struct UpdateMany<'a, T: Document> {
    pub(crate) model: &'a Model<T>,
    pub(crate) filter: BsonDocument,
    pub(crate) update: BsonDocument,
    pub(crate) keep_version: bool,
    pub(crate) session: Option<&'a mut ClientSession>,
}

/// An `update_many` that applies the model's referential rules (`refs`),
/// when the model has them: see [`guard`](crate::model::guard).
pub(crate) type Guard<T> = for<'a> fn(UpdateMany<'a, T>) -> BoxFuture<'a, Result<UpdateReport>>;

impl<T: Document> Model<T> {
    /// Applies `update` (operators: `$set`, `$inc`, ...) to every document
    /// matching `filter`, in one `update` command with `multi: true`, and
    /// reports how many matched and changed.
    ///
    /// ```no_run
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # struct Session { #[serde(rename = "_id")] id: ObjectId, state: String, expires: i64 }
    /// # async fn run(sessions: Model<Session>, now: i64) -> odm::Result<()> {
    /// let report = sessions
    ///     .update_many(
    ///         doc! { "state": "open", "expires": { "$lt": now } },
    ///         doc! { "$set": { "state": "expired" } },
    ///     )
    ///     .await?;
    /// println!("{} expired", report.modified());
    /// # Ok(()) }
    /// ```
    ///
    /// What is sent besides `update`, and what is checked first:
    /// - **The version key** is bumped (`$inc: {__v: 1}`) on every matched
    ///   document, so a tracked copy loaded before this write fails its
    ///   next version-checked save with
    ///   [`Error::Version`](crate::Error::Version) instead of overwriting
    ///   it; [`keep_version`](UpdateMany::keep_version) opts out. An
    ///   `update` that writes the version key itself is sent as given.
    /// - **`updated_at`** is set to now with `#[odm(timestamps)]`, unless
    ///   `update` writes it.
    /// - **Field rules** run on each `$set` of a top-level field (the value
    ///   read as the field's type, then its `validate`, `min`, `max`,
    ///   `min_len`, `max_len`, `one_of`, `required`, `nested` rules) and on
    ///   each `$unset` (as `null`: `required` fails, a field that is not an
    ///   `Option` does not fit); a failure is
    ///   [`Error::Validation`](crate::Error::Validation) and nothing is
    ///   sent. What cannot be checked without the stored documents is not:
    ///   operators whose result depends on the stored value (`$inc`, `$mul`,
    ///   `$min`, `$max`, `$push`, `$addToSet`, `$pull`, `$pop`, `$rename`,
    ///   `$currentDate`), a `$set` of a dotted path (`profile.city`,
    ///   `tags.3`), and the container's cross-field validators.
    /// - **The shard key**: an update that writes a shard key field (or a
    ///   path under or above it) fails with
    ///   [`Error::ShardKey`](crate::Error::ShardKey) before sending.
    /// - **The schema version** (`#[odm(schema_version = N, ..)]`): the
    ///   filter sent also requires `{__sv: N}`, so only documents stored at
    ///   the model's schema version change. An older document is not
    ///   updated (the update names the model's fields, which it may not
    ///   have yet, and stamping `N` on it would skip its upgrade): upgrade
    ///   the collection first with [`migrate_all`](crate::Model::migrate_all)
    ///   (or load and save the documents). A newer one (written by a newer
    ///   instance during a rolling deploy) is never written by this model.
    ///   Neither is counted in the report. An `update` that writes the
    ///   schema version key is refused with
    ///   [`Error::Validation`](crate::Error::Validation).
    /// - **No hooks** run (see the [module](crate::many) docs for why).
    ///
    /// `filter` and `update` are anything that converts into a BSON
    /// document: `doc! {..}`, or a typed filter / update. An `update`
    /// without operators (a replacement) is refused by the driver before
    /// sending.
    ///
    /// The server applies the update to each document atomically, not to
    /// all of them at once: a failure midway (a write error, a lost
    /// connection) may leave some documents updated. Run it in a
    /// transaction ([`session`](UpdateMany::session)) when it must be all
    /// or nothing.
    pub fn update_many(
        &self,
        filter: impl Into<BsonDocument>,
        update: impl Into<BsonDocument>,
    ) -> UpdateMany<'_, T> {
        UpdateMany {
            model: self,
            filter: filter.into(),
            update: update.into(),
            keep_version: false,
            session: None,
        }
    }
}

impl<'a, T: Document> UpdateMany<'a, T> {
    /// Sends no version bump. Safe only when no tracked copy of a matched
    /// document can hold a value this update changes and then save it
    /// back: a field no model field maps to, a counter only ever changed by
    /// `$inc` (never by a save), or a collection whose documents are never
    /// loaded as tracked copies while this runs (a migration during
    /// downtime). Otherwise a stale copy's save overwrites this update
    /// without an error, even under `optimistic_concurrency`.
    pub fn keep_version(mut self) -> Self {
        self.keep_version = true;
        self
    }
}

awaitable! {
    impl['a, T: Document] UpdateMany<'a, T> => Result<UpdateReport>;
    /// Updates inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        match crate::model::guard::<T, Guard<T>>() {
            Some(guarded) => guarded(self).await,
            None => self.unguarded().await,
        }
    }
}

impl<'a, T: Document> UpdateMany<'a, T> {
    /// The update, without the referential rules' step.
    pub(crate) fn unguarded(self) -> BoxFuture<'a, Result<UpdateReport>> {
        Box::pin(async move {
            let UpdateMany {
                model,
                filter,
                update,
                keep_version,
                session,
            } = self;
            let now = crate::wire::server_clock::now::<T>(&model.database(), model.name()).await?;
            let update = plan::prepare(
                T::__odm_meta(),
                model.name(),
                update,
                keep_version,
                now,
                T::__odm_validate_field,
            )?;
            let filter = plan::filter(T::__odm_meta(), filter);
            let log = Command::new(model.name(), "update")
                .filter(&filter)
                .update(&update);
            let action = model.collection().update_many(filter, update);
            let done = super::send(model, log, action, session).await?;
            Ok(UpdateReport {
                matched: done.matched_count,
                modified: done.modified_count,
            })
        })
    }
}
