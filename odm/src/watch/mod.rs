//! Change streams: [`Model::watch`] delivers every insert, update, replace
//! and delete of the model's collection as a typed [`ChangeEvent`].
//!
//! ```no_run
//! use futures_util::TryStreamExt;
//! use odm::prelude::*;
//! use odm::watch::OperationType;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
//! # #[odm(collection = "users")]
//! # struct User { #[serde(rename = "_id")] id: ObjectId, status: String }
//!
//! # async fn run(users: Model<User>, saved: Option<odm::watch::ResumeToken>) -> odm::Result<()> {
//! let mut changes = users
//!     .watch()
//!     .filter(doc! { "status": "ACTIVE" })   // a model filter: typed or `doc!`
//!     .resume_after(saved)                   // go on where the last run stopped
//!     .await?;
//! while let Some(event) = changes.try_next().await? {
//!     match event.operation_type {
//!         OperationType::Insert | OperationType::Update | OperationType::Replace => {
//!             let user: &User = event.full_document.as_ref().expect("looked up");
//!             println!("{} is {}", user.id, user.status);
//!         }
//!         OperationType::Delete => println!("{:?} deleted", event.id()),
//!         _ => {}
//!     }
//!     let _store_me = event.resume_token();   // serde: keep it anywhere
//! }
//! # Ok(()) }
//! ```
//!
//! - **Typed events.** [`ChangeEvent::full_document`] is the document as a
//!   `T` (loaded like any read: the version key is in
//!   [`ChangeEvent::version`], a document that does not fit `T` is one
//!   [`Error::Deserialize`] item naming its id and field, and the stream
//!   goes on). Updates look the document up by default
//!   ([`FullDocumentType::UpdateLookup`]); [`Watch::full_document`]
//!   changes that.
//! - **A filter on the documents.** [`Watch::filter`] takes a filter
//!   written against the model (a typed filter or `doc!`); odm moves its
//!   paths under `fullDocument`. Events without a document (deletes,
//!   drops) cannot be judged by it and all pass: tell them apart with
//!   [`ChangeEvent::id`]. Operators that read the whole event (`$expr`,
//!   `$where`, `$text`) are refused ([`WatchErrorKind::Filter`]), and so
//!   is a key of the events themselves (`operationType`, `ns`,
//!   `updateDescription`, `fullDocument`, ...) that is no field of the
//!   model, which would match nothing; add a raw stage with
//!   [`Watch::pipeline`] instead.
//! - **Resuming.** Every event carries its [`ResumeToken`], and
//!   [`ChangeStream::resume_token`] is the latest one. A token remembers
//!   the collection it came from: resuming another collection's stream
//!   with it fails with [`Error::Watch`] ([`WatchErrorKind::ForeignToken`])
//!   before anything is sent. When the connection drops or the server
//!   answers with a resumable error, the driver reopens the stream after
//!   the last delivered event by itself: the stream neither misses nor
//!   repeats a change.
//! - **Where.** A change stream needs a replica set or a sharded cluster
//!   (a one-node replica set will do). It cannot be opened inside a
//!   transaction, so [`Watch`] takes no session. It reads with the
//!   model's collection options (see [`Model::with_options`]).
//!
//! The command log shows the stream's opening as an `aggregate` whose
//! pipeline is shown as the update; the waiting `getMore`s are the
//! driver's and are not logged.
//!
//! [`Model::watch`]: crate::Model::watch
//! [`Model::with_options`]: crate::Model::with_options
//! [`Error::Deserialize`]: crate::Error::Deserialize
//! [`Error::Watch`]: crate::Error::Watch

mod event;
mod filter;
mod stream;
mod token;

use std::time::Duration;

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{Document as BsonDocument, Timestamp};
use mongodb::options::ChangeStreamOptions;

pub use event::ChangeEvent;
pub use mongodb::change_stream::event::{OperationType, UpdateDescription};
pub use mongodb::options::FullDocumentType;
pub use stream::ChangeStream;
pub use token::ResumeToken;

pub use crate::error::{WatchError, WatchErrorKind};

use crate::error::{from_driver, Error, Result};
use crate::model::Document;
use crate::model::Model;
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;

impl<T: Document> Model<T> {
    /// A change stream on this model's collection: `.await` it for a
    /// [`ChangeStream`] of typed [`ChangeEvent`]s. See [`watch`](crate::watch).
    pub fn watch(&self) -> Watch<'_, T> {
        let mut options = ChangeStreamOptions::default();
        options.full_document = Some(FullDocumentType::UpdateLookup);
        Watch {
            model: self,
            filter: None,
            pipeline: Vec::new(),
            options,
            resume: None,
        }
    }
}

/// A pending [`Model::watch`]; `.await` it for the [`ChangeStream`].
#[must_use = "no stream is opened until it is awaited"]
pub struct Watch<'a, T: Document> {
    model: &'a Model<T>,
    filter: Option<BsonDocument>,
    pipeline: Vec<BsonDocument>,
    options: ChangeStreamOptions,
    resume: Option<(ResumeToken, Resume)>,
}

#[derive(Clone, Copy)]
enum Resume {
    After,
    StartAfter,
}

impl<'a, T: Document> Watch<'a, T> {
    /// Only the changes whose document matches `filter`, a filter written
    /// against the model (a typed filter or `doc!`). Events without a
    /// document (deletes, drops, invalidates) all pass. A key of the
    /// events themselves (`operationType`, `ns`, `updateDescription`, ...)
    /// that is no field of the model is refused before anything is sent
    /// ([`WatchErrorKind::Filter`]): filter events with a `$match` stage in
    /// [`pipeline`](Watch::pipeline).
    pub fn filter(mut self, filter: impl Into<BsonDocument>) -> Self {
        self.filter = Some(filter.into());
        self
    }

    /// Raw aggregation stages run on the events, after the
    /// [`filter`](Watch::filter). They must keep `_id` (the resume token),
    /// `operationType` and `ns`, and the events' shape.
    pub fn pipeline(mut self, stages: impl IntoIterator<Item = BsonDocument>) -> Self {
        self.pipeline = stages.into_iter().collect();
        self
    }

    /// Which document an update event carries: the looked-up current one
    /// (`UpdateLookup`, the default), or none (`Default`).
    pub fn full_document(mut self, full_document: FullDocumentType) -> Self {
        self.options.full_document = Some(full_document);
        self
    }

    /// Start right after the event `token` was taken at (`None`: from now).
    /// A token of another collection's stream is refused with
    /// [`Error::Watch`] when awaited, before anything is sent.
    pub fn resume_after(mut self, token: impl Into<Option<ResumeToken>>) -> Self {
        self.resume = token.into().map(|t| (t, Resume::After));
        self
    }

    /// As [`resume_after`](Watch::resume_after), and may also start after
    /// an invalidate event (the collection was dropped or renamed).
    pub fn start_after(mut self, token: impl Into<Option<ResumeToken>>) -> Self {
        self.resume = token.into().map(|t| (t, Resume::StartAfter));
        self
    }

    /// Start at this cluster time.
    pub fn start_at_operation_time(mut self, time: Timestamp) -> Self {
        self.options.start_at_operation_time = Some(time);
        self
    }

    /// How many events the server sends per batch.
    pub fn batch_size(mut self, events: u32) -> Self {
        self.options.batch_size = Some(events);
        self
    }

    /// How long the server waits for a change before answering a batch
    /// request with none.
    pub fn max_await_time(mut self, wait: Duration) -> Self {
        self.options.max_await_time = Some(wait);
        self
    }

    /// The driver's options, replacing every option set so far (a resume
    /// token given with [`resume_after`](Watch::resume_after) still applies
    /// and is checked).
    pub fn with_options(mut self, options: ChangeStreamOptions) -> Self {
        self.options = options;
        self
    }

    fn error(&self, kind: WatchErrorKind) -> Error {
        Error::Watch(Box::new(WatchError {
            namespace: self.model.collection().namespace().to_string(),
            kind,
        }))
    }

    /// The pipeline sent: the filter's `$match`, then the raw stages.
    fn stages(&self) -> Result<Vec<BsonDocument>> {
        let mut stages = Vec::with_capacity(self.pipeline.len() + 1);
        if let Some(filter) = &self.filter {
            let fields: Vec<&str> = T::__odm_meta()
                .fields
                .iter()
                .map(|(_, bson)| *bson)
                .collect();
            let stage = filter::match_stage(filter, &fields)
                .map_err(|message| self.error(WatchErrorKind::Filter { message }))?;
            stages.push(stage);
        }
        stages.extend(self.pipeline.iter().cloned());
        Ok(stages)
    }
}

awaitable! {
    impl['a, T: Document] Watch<'a, T> => Result<ChangeStream<T>>;
    into_future(self) async move {
        let ns = self.model.collection().namespace().to_string();
        if let Some((token, how)) = self.resume.take() {
            let driver = match token.check(&ns) {
                Ok(driver) => driver.clone(),
                Err(found) => {
                    let found = found.to_string();
                    return Err(self.error(WatchErrorKind::ForeignToken { token: found }));
                }
            };
            match how {
                Resume::After => self.options.resume_after = Some(driver),
                Resume::StartAfter => self.options.start_after = Some(driver),
            }
        }
        let stages = self.stages()?;
        let name = self.model.name();
        let log = Command::new(name, "aggregate").update(stages.as_slice());
        let action = self
            .model
            .raw_collection()
            .watch()
            .pipeline(stages.clone())
            .with_options(self.options);
        let opened = log.send(action).await.map_err(|e| from_driver(e, name))?;
        Ok(ChangeStream::new(
            opened.with_type::<RawDocumentBuf>(),
            ns,
            name.to_string(),
        ))
    }
}
