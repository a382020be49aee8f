//! The read and create operations of [`Model`] as awaitable builders, so
//! each can run inside a session (and its transaction), like the driver's.

use futures_util::TryStreamExt;
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use mongodb::options::{CountOptions, FindOneOptions, FindOptions};
use mongodb::ClientSession;

use crate::error::{from_driver, Result};
use crate::model::doc::Doc;
use crate::model::stream::{FindStream, Source};
use crate::model::Document;
use crate::model::Model;
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;
use crate::wire::session::BoxFuture;

impl<T: Document> Model<T> {
    /// Validates and inserts `value` now, with version 0. A missing or null
    /// `_id` is generated first, as by [`Doc::save`]: the returned `Doc`
    /// holds it.
    pub fn create(&self, value: T) -> Create<'_, T> {
        Create {
            model: self,
            value,
            session: None,
        }
    }

    /// The document with this `_id`, if any.
    pub fn find_by_id(&self, id: impl Into<Bson>) -> FindOne<'_, T> {
        self.find_one(doc! { "_id": id.into() })
    }

    /// The first document matching `filter` (a `bson::Document` or a
    /// typed [`Filter`](super::super::typed::Filter)), if any.
    pub fn find_one(&self, filter: impl Into<BsonDocument>) -> FindOne<'_, T> {
        FindOne {
            model: self,
            filter: filter.into(),
            sort: None,
            options: FindOneOptions::default(),
            session: None,
        }
    }

    /// Every document matching `filter` (a `bson::Document` or a typed
    /// [`Filter`](super::super::typed::Filter)): awaited, a `Vec`; or one at a
    /// time with [`stream`](Find::stream).
    pub fn find(&self, filter: impl Into<BsonDocument>) -> Find<'_, T> {
        Find {
            model: self,
            filter: filter.into(),
            options: FindOptions::default(),
            session: None,
        }
    }

    /// How many documents match `filter` (a `bson::Document` or a typed
    /// [`Filter`](super::super::typed::Filter)).
    pub fn count(&self, filter: impl Into<BsonDocument>) -> Count<'_, T> {
        Count {
            model: self,
            filter: filter.into(),
            options: CountOptions::default(),
            session: None,
        }
    }
}

/// A pending [`Model::create`].
#[must_use = "nothing is inserted until it is awaited"]
pub struct Create<'a, T: Document> {
    model: &'a Model<T>,
    value: T,
    session: Option<&'a mut ClientSession>,
}

awaitable! {
    impl['a, T: Document] Create<'a, T> => Result<Doc<T>>;
    /// Inserts inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        let mut doc = self.model.new_doc(self.value);
        crate::wire::session::send(doc.save(), self.session).await?;
        Ok(doc)
    }
}

/// A pending [`Model::find_one`] / [`Model::find_by_id`].
#[must_use = "nothing is read until it is awaited"]
pub struct FindOne<'a, T: Document> {
    pub(crate) model: &'a Model<T>,
    pub(crate) filter: BsonDocument,
    pub(crate) sort: Option<BsonDocument>,
    /// The driver's options (`read_options.rs` sets them).
    pub(crate) options: FindOneOptions,
    pub(crate) session: Option<&'a mut ClientSession>,
}

impl<'a, T: Document> FindOne<'a, T> {
    /// Which document is first when several match (a `bson::Document` or
    /// a typed [`Sort`](super::super::typed::Sort)).
    pub fn sort(mut self, sort: impl Into<BsonDocument>) -> Self {
        self.sort = Some(sort.into());
        self
    }
}

awaitable! {
    impl['a, T: Document] FindOne<'a, T> => Result<Option<Doc<T>>>;
    /// Reads inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        let mut options = self.options;
        if self.sort.is_some() {
            options.sort = self.sort;
        }
        let log = Command::new(self.model.name(), "find").filter(&self.filter);
        let action = self
            .model
            .raw_collection()
            .find_one(self.filter)
            .with_options(options);
        let found = log
            .send(crate::wire::session::send(action, self.session))
            .await;
        match found.map_err(|e| from_driver(e, self.model.name()))? {
            Some(raw) => Ok(Some(self.model.track(raw)?)),
            None => Ok(None),
        }
    }
}

/// A pending [`Model::find`]: `.await` it for a `Vec` of every matching
/// document, or call [`stream`](Find::stream) to read them one at a time.
#[must_use = "nothing is read until it is awaited"]
pub struct Find<'a, T: Document> {
    pub(crate) model: &'a Model<T>,
    pub(crate) filter: BsonDocument,
    pub(crate) options: FindOptions,
    pub(crate) session: Option<&'a mut ClientSession>,
}

impl<'a, T: Document> Find<'a, T> {
    /// The order of the results (a `bson::Document` or a typed
    /// [`Sort`](super::super::typed::Sort)).
    pub fn sort(mut self, sort: impl Into<BsonDocument>) -> Self {
        self.options.sort = Some(sort.into());
        self
    }

    /// At most this many documents.
    pub fn limit(mut self, limit: i64) -> Self {
        self.options.limit = Some(limit);
        self
    }

    /// Skips this many matching documents first.
    pub fn skip(mut self, skip: u64) -> Self {
        self.options.skip = Some(skip);
        self
    }

    /// How many documents the server sends per batch (its default: 101 in
    /// the first batch, then up to 16 MiB per batch). A
    /// [`stream`](Find::stream) holds about one batch at a time.
    pub fn batch_size(mut self, documents: u32) -> Self {
        self.options.batch_size = Some(documents);
        self
    }

    /// Sends the query and returns its documents as a
    /// [`Stream`](futures_util::Stream) over the server's cursor, for scans
    /// that must not hold every document at once:
    ///
    /// ```no_run
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # struct User { #[serde(rename = "_id")] id: ObjectId, status: String }
    /// use futures_util::TryStreamExt;
    ///
    /// # async fn run(users: Model<User>) -> odm::Result<()> {
    /// let mut pending = users.find(doc! { "status": "PENDING" }).batch_size(500).stream().await?;
    /// while let Some(mut user) = pending.try_next().await? {
    ///     user.status = "ACTIVE".into();
    ///     user.save().await?;
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// A document that does not deserialize is one `Err` item and the
    /// stream goes on (`try_next` above stops at it; `next` would not).
    /// With [`session`](Find::session) the stream borrows the session
    /// until it is dropped.
    pub fn stream(self) -> BoxFuture<'a, Result<FindStream<'a, T>>> {
        Box::pin(async move {
            let model = self.model;
            Ok(FindStream::new(model, self.open().await?))
        })
    }

    /// Sends the query: the cursor of its raw documents.
    pub(crate) async fn open(self) -> Result<Source<'a>> {
        let Find {
            model,
            filter,
            options,
            session,
        } = self;
        let log = Command::new(model.name(), "find").filter(&filter);
        let action = model.raw_collection().find(filter).with_options(options);
        Ok(match session {
            Some(s) => {
                let cursor = log.send(async { action.session(&mut *s).await }).await;
                let cursor = cursor.map_err(|e| from_driver(e, model.name()))?;
                Source::Session(cursor, s)
            }
            None => {
                let cursor = log.send(action).await;
                Source::Plain(cursor.map_err(|e| from_driver(e, model.name()))?)
            }
        })
    }
}

awaitable! {
    impl['a, T: Document] Find<'a, T> => Result<Vec<Doc<T>>>;
    /// Reads inside `session` (and its transaction, if one is open).
    session;
    // Every matching document; the first error ends it.
    into_future(self) async move { self.stream().await?.try_collect().await }
}

/// A pending [`Model::count`].
#[must_use = "nothing is counted until it is awaited"]
pub struct Count<'a, T: Document> {
    model: &'a Model<T>,
    filter: BsonDocument,
    /// The driver's options (`read_options.rs` sets them).
    pub(crate) options: CountOptions,
    session: Option<&'a mut ClientSession>,
}

awaitable! {
    impl['a, T: Document] Count<'a, T> => Result<u64>;
    /// Counts inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        let log = Command::new(self.model.name(), "count").filter(&self.filter);
        let action = self
            .model
            .collection()
            .count_documents(self.filter)
            .with_options(self.options);
        let counted = log
            .send(crate::wire::session::send(action, self.session))
            .await;
        counted.map_err(|e| from_driver(e, self.model.name()))
    }
}
