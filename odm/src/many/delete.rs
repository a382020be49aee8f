//! `Model::delete_many`: one `delete` command on a filter.

use mongodb::bson::Document as BsonDocument;
use mongodb::ClientSession;

use crate::error::Result;
use crate::model::Document;
use crate::model::Model;
use crate::wire::command_log::Command;
use crate::wire::session::{awaitable, BoxFuture};

/// A pending [`Model::delete_many`]; optionally
/// [`session`](DeleteMany::session), then `.await` it.
#[must_use = "nothing is deleted until it is awaited"]
pub struct DeleteMany<'a, T: Document> {
    pub(crate) model: &'a Model<T>,
    pub(crate) filter: BsonDocument,
    pub(crate) session: Option<&'a mut ClientSession>,
}

/// A `delete_many` that applies the rules pointing at the model (`refs`),
/// when there are any: see [`guard`](crate::model::guard).
pub(crate) type Guard<T> = for<'a> fn(DeleteMany<'a, T>) -> BoxFuture<'a, Result<u64>>;

impl<T: Document> Model<T> {
    /// Deletes every document matching `filter` in one `delete` command
    /// and returns how many were deleted. `doc! {}` deletes them all.
    ///
    /// No hooks run (`before_delete` / `after_delete` receive a document;
    /// see the [module](crate::many) docs). A tracked copy of a deleted
    /// document fails its next save with
    /// [`Error::NotFound`](crate::Error::NotFound) (a save that checks
    /// nothing) or [`Error::Version`](crate::Error::Version) (one that
    /// checks the version), as after [`Doc::delete`](crate::Doc::delete).
    ///
    /// ```no_run
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # struct Session { #[serde(rename = "_id")] id: ObjectId, state: String }
    /// # async fn run(sessions: Model<Session>) -> odm::Result<()> {
    /// let deleted: u64 = sessions.delete_many(doc! { "state": "expired" }).await?;
    /// # Ok(()) }
    /// ```
    pub fn delete_many(&self, filter: impl Into<BsonDocument>) -> DeleteMany<'_, T> {
        DeleteMany {
            model: self,
            filter: filter.into(),
            session: None,
        }
    }
}

awaitable! {
    impl['a, T: Document] DeleteMany<'a, T> => Result<u64>;
    /// Deletes inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        match crate::model::guard::<T, Guard<T>>() {
            Some(guarded) => guarded(self).await,
            None => self.unguarded().await,
        }
    }
}

impl<'a, T: Document> DeleteMany<'a, T> {
    /// The delete, without the referential rules' step.
    pub(crate) fn unguarded(self) -> BoxFuture<'a, Result<u64>> {
        Box::pin(async move {
            let log = Command::new(self.model.name(), "delete").filter(&self.filter);
            let action = self.model.collection().delete_many(self.filter);
            let done = super::send(self.model, log, action, self.session).await?;
            Ok(done.deleted_count)
        })
    }
}
