//! The read and create operations of [`Model`] as awaitable builders, so
//! each can run inside a session (and its transaction), like the driver's.

use std::future::IntoFuture;

use futures_util::TryStreamExt;
use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use mongodb::options::{FindOneOptions, FindOptions};
use mongodb::ClientSession;

use crate::doc::Doc;
use crate::document::Document;
use crate::error::{from_driver, Error, Result};
use crate::model::Model;
use crate::save::BoxFuture;

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

    /// The first document matching `filter`, if any.
    pub fn find_one(&self, filter: BsonDocument) -> FindOne<'_, T> {
        FindOne {
            model: self,
            filter,
            sort: None,
            session: None,
        }
    }

    /// Every document matching `filter`.
    pub fn find(&self, filter: BsonDocument) -> Find<'_, T> {
        Find {
            model: self,
            filter,
            sort: None,
            limit: None,
            skip: None,
            session: None,
        }
    }

    /// How many documents match `filter`.
    pub fn count(&self, filter: BsonDocument) -> Count<'_, T> {
        Count {
            model: self,
            filter,
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

impl<'a, T: Document> Create<'a, T> {
    /// Inserts inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }
}

impl<'a, T: Document> IntoFuture for Create<'a, T> {
    type Output = Result<Doc<T>>;
    type IntoFuture = BoxFuture<'a, Result<Doc<T>>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let mut doc = self.model.new_doc(self.value);
            crate::session::send(doc.save(), self.session).await?;
            Ok(doc)
        })
    }
}

/// A pending [`Model::find_one`] / [`Model::find_by_id`].
#[must_use = "nothing is read until it is awaited"]
pub struct FindOne<'a, T: Document> {
    model: &'a Model<T>,
    filter: BsonDocument,
    sort: Option<BsonDocument>,
    session: Option<&'a mut ClientSession>,
}

impl<'a, T: Document> FindOne<'a, T> {
    /// Which document is first when several match.
    pub fn sort(mut self, sort: BsonDocument) -> Self {
        self.sort = Some(sort);
        self
    }

    /// Reads inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }
}

impl<'a, T: Document> IntoFuture for FindOne<'a, T> {
    type Output = Result<Option<Doc<T>>>;
    type IntoFuture = BoxFuture<'a, Result<Option<Doc<T>>>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let mut options = FindOneOptions::default();
            options.sort = self.sort;
            let action = self
                .model
                .raw_collection()
                .find_one(self.filter)
                .with_options(options);
            let found = crate::session::send(action, self.session).await;
            match found.map_err(Error::Driver)? {
                Some(raw) => Ok(Some(self.model.track(raw)?)),
                None => Ok(None),
            }
        })
    }
}

/// A pending [`Model::find`].
#[must_use = "nothing is read until it is awaited"]
pub struct Find<'a, T: Document> {
    model: &'a Model<T>,
    filter: BsonDocument,
    sort: Option<BsonDocument>,
    limit: Option<i64>,
    skip: Option<u64>,
    session: Option<&'a mut ClientSession>,
}

impl<'a, T: Document> Find<'a, T> {
    /// The order of the results.
    pub fn sort(mut self, sort: BsonDocument) -> Self {
        self.sort = Some(sort);
        self
    }

    /// At most this many documents.
    pub fn limit(mut self, limit: i64) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Skips this many matching documents first.
    pub fn skip(mut self, skip: u64) -> Self {
        self.skip = Some(skip);
        self
    }

    /// Reads inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }
}

impl<'a, T: Document> IntoFuture for Find<'a, T> {
    type Output = Result<Vec<Doc<T>>>;
    type IntoFuture = BoxFuture<'a, Result<Vec<Doc<T>>>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let mut options = FindOptions::default();
            options.sort = self.sort;
            options.limit = self.limit;
            options.skip = self.skip;
            let action = self
                .model
                .raw_collection()
                .find(self.filter)
                .with_options(options);
            let raws: Vec<RawDocumentBuf> = match self.session {
                Some(s) => {
                    let mut cursor = action.session(&mut *s).await.map_err(Error::Driver)?;
                    cursor
                        .stream(s)
                        .try_collect()
                        .await
                        .map_err(Error::Driver)?
                }
                None => {
                    let cursor = action.await.map_err(Error::Driver)?;
                    cursor.try_collect().await.map_err(Error::Driver)?
                }
            };
            raws.into_iter().map(|raw| self.model.track(raw)).collect()
        })
    }
}

/// A pending [`Model::count`].
#[must_use = "nothing is counted until it is awaited"]
pub struct Count<'a, T: Document> {
    model: &'a Model<T>,
    filter: BsonDocument,
    session: Option<&'a mut ClientSession>,
}

impl<'a, T: Document> Count<'a, T> {
    /// Counts inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }
}

impl<'a, T: Document> IntoFuture for Count<'a, T> {
    type Output = Result<u64>;
    type IntoFuture = BoxFuture<'a, Result<u64>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let action = self.model.collection().count_documents(self.filter);
            let counted = crate::session::send(action, self.session).await;
            counted.map_err(|e| from_driver(e, self.model.name()))
        })
    }
}
