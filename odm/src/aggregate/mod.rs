//! Typed aggregation: [`Model::aggregate`] runs a pipeline on the model's
//! collection and decodes each result into a chosen type.
//!
//! ```no_run
//! use futures_util::TryStreamExt;
//! use odm::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
//! # struct Order { #[serde(rename = "_id")] id: ObjectId, status: String, customer: String, total: i64 }
//!
//! #[derive(Debug, Deserialize)]
//! struct Spend {
//!     #[serde(rename = "_id")]
//!     customer: String,
//!     total: i64,
//! }
//!
//! # async fn run(orders: Model<Order>) -> odm::Result<()> {
//! let f = Order::fields();
//! let mut top = orders
//!     .aggregate([])
//!     .filter(f.status().eq("PAID"))                       // $match, typed
//!     .stage(doc! { "$group": { "_id": "$customer", "total": { "$sum": "$total" } } })
//!     .sort(doc! { "total": -1 })                           // $sort
//!     .limit(10)                                            // $limit
//!     .with_type::<Spend>()                                 // results as `Spend`
//!     .allow_disk_use(true)
//!     .stream()
//!     .await?;
//! while let Some(spend) = top.try_next().await? {
//!     println!("{} spent {}", spend.customer, spend.total);
//! }
//! # Ok(()) }
//! ```
//!
//! - **Stages.** The pipeline given to [`Model::aggregate`] (raw
//!   `bson::Document` stages, possibly none), then each helper's stage in
//!   the order called: [`filter`](Aggregate::filter) (`$match`, a typed
//!   filter or `doc!`), [`sort`](Aggregate::sort), [`skip`](Aggregate::skip),
//!   [`limit`](Aggregate::limit), [`project`](Aggregate::project),
//!   [`projection`](Aggregate::projection) (a `$project` of a
//!   [`Fields`](crate::Fields) type's fields, decoding into it), and
//!   [`stage`](Aggregate::stage) for any other.
//! - **Results.** `bson::Document`s unless
//!   [`with_type`](Aggregate::with_type) chooses a serde type. Awaited, a
//!   `Vec`; [`stream`](Aggregate::stream) reads them batch by batch. A
//!   result that does not decode fails with
//!   [`Error::Deserialize`](crate::Error::Deserialize) naming the result's
//!   `_id` (when it has one) and the field; in a stream it is one `Err`
//!   item and the stream goes on. Results are not tracked: to save one,
//!   [`Model::hydrate`] it.
//! - **Options** by the driver's names: `allow_disk_use`, `batch_size`,
//!   `max_time`, `comment`, `hint`, `collation`, `let_vars`, and
//!   [`with_options`](Aggregate::with_options) for the rest;
//!   [`session`](Aggregate::session) runs it inside a session (and its
//!   transaction).
//! - **The command log** shows an `aggregate` whose pipeline is shown as
//!   the update (values hidden under `TRACE`).

mod options;
mod stream;

use std::marker::PhantomData;

use futures_util::TryStreamExt;
use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::options::AggregateOptions;
use mongodb::ClientSession;
use serde::de::DeserializeOwned;

pub use stream::AggregateStream;

use crate::error::{from_driver, Result};
use crate::model::stream::Source;
use crate::model::Document;
use crate::model::Model;
use crate::typed::Projection;
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;
use crate::wire::session::BoxFuture;

impl<T: Document> Model<T> {
    /// An aggregation on this model's collection, starting with the stages
    /// of `pipeline` (raw `bson::Document`s; `[]` for none): add stages
    /// with the builder's helpers, then `.await` it for a `Vec` of results
    /// or [`stream`](Aggregate::stream) them. See [`aggregate`](crate::aggregate).
    pub fn aggregate(
        &self,
        pipeline: impl IntoIterator<Item = BsonDocument>,
    ) -> Aggregate<'_, T, BsonDocument> {
        Aggregate {
            model: self,
            pipeline: pipeline.into_iter().collect(),
            options: AggregateOptions::default(),
            session: None,
            _result: PhantomData,
        }
    }
}

/// A pending [`Model::aggregate`], whose results decode into `R`.
#[must_use = "nothing is run until it is awaited"]
pub struct Aggregate<'a, T: Document, R = BsonDocument> {
    model: &'a Model<T>,
    pipeline: Vec<BsonDocument>,
    /// The driver's options (`options.rs` sets them).
    options: AggregateOptions,
    session: Option<&'a mut ClientSession>,
    _result: PhantomData<fn() -> R>,
}

impl<'a, T: Document, R> Aggregate<'a, T, R> {
    /// Appends a raw stage.
    pub fn stage(mut self, stage: BsonDocument) -> Self {
        self.pipeline.push(stage);
        self
    }

    /// Appends `{ $match: filter }`: a typed filter or a `bson::Document`.
    pub fn filter(self, filter: impl Into<BsonDocument>) -> Self {
        self.stage(doc! { "$match": filter.into() })
    }

    /// Appends `{ $sort: sort }`: a typed sort or a `bson::Document`.
    pub fn sort(self, sort: impl Into<BsonDocument>) -> Self {
        self.stage(doc! { "$sort": sort.into() })
    }

    /// Appends `{ $skip: n }`.
    pub fn skip(self, n: u64) -> Self {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        self.stage(doc! { "$skip": n })
    }

    /// Appends `{ $limit: n }`.
    pub fn limit(self, n: i64) -> Self {
        self.stage(doc! { "$limit": n })
    }

    /// Appends `{ $project: projection }`.
    pub fn project(self, projection: BsonDocument) -> Self {
        self.stage(doc! { "$project": projection })
    }

    /// Appends a `$project` of `P`'s fields (derive
    /// [`Fields`](crate::Fields) on it) and decodes the results into `P`.
    pub fn projection<P>(self) -> Aggregate<'a, T, P>
    where
        P: Projection + DeserializeOwned,
    {
        self.project(crate::typed::fields_of::<P>())
            .with_type::<P>()
    }

    /// Decodes the results into `U` (any serde type; `T` itself, a
    /// smaller view, a report row) instead of `bson::Document`.
    pub fn with_type<U>(self) -> Aggregate<'a, T, U> {
        Aggregate {
            model: self.model,
            pipeline: self.pipeline,
            options: self.options,
            session: self.session,
            _result: PhantomData,
        }
    }

    /// The stages as they will be sent.
    pub fn pipeline(&self) -> &[BsonDocument] {
        &self.pipeline
    }
}

impl<'a, T: Document, R: DeserializeOwned + 'a> Aggregate<'a, T, R> {
    /// Sends the aggregation and returns its results as a `Stream` over
    /// the server's cursor. With [`session`](Aggregate::session) the stream
    /// borrows the session until it is dropped.
    pub fn stream(self) -> BoxFuture<'a, Result<AggregateStream<'a, R>>> {
        Box::pin(async move {
            let model = self.model;
            Ok(AggregateStream::new(model.name(), self.open().await?))
        })
    }
}

impl<'a, T: Document, R> Aggregate<'a, T, R> {
    /// Sends the aggregation: the cursor of its raw results.
    pub(crate) async fn open(self) -> Result<Source<'a>> {
        let Aggregate {
            model,
            pipeline,
            options,
            session,
            ..
        } = self;
        let name = model.name();
        let log = Command::new(name, "aggregate").update(pipeline.as_slice());
        let action = model
            .raw_collection()
            .aggregate(pipeline)
            .with_options(options)
            .with_type::<RawDocumentBuf>();
        Ok(match session {
            Some(s) => {
                let cursor = log.send(async { action.session(&mut *s).await }).await;
                Source::Session(cursor.map_err(|e| from_driver(e, name))?, s)
            }
            None => Source::Plain(log.send(action).await.map_err(|e| from_driver(e, name))?),
        })
    }

    /// The model the pipeline runs on.
    pub(crate) fn model(&self) -> &'a Model<T> {
        self.model
    }
}

awaitable! {
    impl['a, T: Document, R: DeserializeOwned + Send + 'a] Aggregate<'a, T, R> => Result<Vec<R>>;
    /// Runs inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move { self.stream().await?.try_collect().await }
}
