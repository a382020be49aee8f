//! `Model::delete_many`: one `delete` command on a filter.

use std::future::IntoFuture;

use mongodb::bson::Document as BsonDocument;
use mongodb::ClientSession;

use crate::command_log::Command;
use crate::document::Document;
use crate::error::Result;
use crate::model::Model;
use crate::save::BoxFuture;

/// A pending [`Model::delete_many`]; optionally
/// [`session`](DeleteMany::session), then `.await` it.
#[must_use = "nothing is deleted until it is awaited"]
pub struct DeleteMany<'a, T: Document> {
    model: &'a Model<T>,
    filter: BsonDocument,
    session: Option<&'a mut ClientSession>,
}

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

impl<'a, T: Document> DeleteMany<'a, T> {
    /// Deletes inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }
}

impl<'a, T: Document> IntoFuture for DeleteMany<'a, T> {
    type Output = Result<u64>;
    type IntoFuture = BoxFuture<'a, Result<u64>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let log = Command::new(self.model.name(), "delete").filter(&self.filter);
            let action = self.model.collection().delete_many(self.filter);
            let done = super::send(self.model, log, action, self.session).await?;
            Ok(done.deleted_count)
        })
    }
}
