//! [`Model::exists`]: whether any document matches.

use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::options::FindOneOptions;
use mongodb::ClientSession;

use crate::error::{from_driver, Result};
use crate::model::Document;
use crate::model::Model;
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;

impl<T: Document> Model<T> {
    /// Whether any document matches `filter` (a `bson::Document` or a
    /// typed [`Filter`](crate::typed::Filter)): one `find` with limit 1 that
    /// reads only the `_id`.
    pub fn exists(&self, filter: impl Into<BsonDocument>) -> Exists<'_, T> {
        Exists {
            model: self,
            filter: filter.into(),
            session: None,
        }
    }
}

/// A pending [`Model::exists`].
#[must_use = "nothing is read until it is awaited"]
pub struct Exists<'a, T: Document> {
    model: &'a Model<T>,
    filter: BsonDocument,
    session: Option<&'a mut ClientSession>,
}

awaitable! {
    impl['a, T: Document] Exists<'a, T> => Result<bool>;
    /// Reads inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        let mut options = FindOneOptions::default();
        options.projection = Some(doc! { "_id": 1 });
        let log = Command::new(self.model.name(), "find").filter(&self.filter);
        let action = self
            .model
            .collection()
            .find_one(self.filter)
            .with_options(options);
        let found = log
            .send(crate::wire::session::send(action, self.session))
            .await;
        let found = found.map_err(|e| from_driver(e, self.model.name()))?;
        Ok(found.is_some())
    }
}
