//! [`FindStream`]: the documents of a [`Find`](crate::Find) one at a time,
//! as the server's cursor delivers them, batch by batch, so a scan holds
//! one batch at a time instead of every document.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::stream::{self, BoxStream};
use futures_util::{Stream, StreamExt};
use mongodb::bson::raw::RawDocumentBuf;
use mongodb::{ClientSession, Cursor, SessionCursor};

use crate::error::{from_driver, Result};
use crate::model::doc::Doc;
use crate::model::Document;
use crate::model::Model;

/// A `Stream` of the documents a [`Find`](crate::Find) matches, from
/// [`Find::stream`](crate::Find::stream).
///
/// Each item is one `Doc<T>`, or the error of one document: a stored
/// document that does not deserialize into `T` is one
/// [`Error::Deserialize`](crate::Error::Deserialize) item, and the stream
/// goes on with the next document. An error of the cursor itself (the
/// server or the network failed fetching a batch) is the last item.
///
/// Inside a session the stream borrows the session until it is dropped,
/// since each batch is fetched within it.
#[must_use = "a stream does nothing unless polled"]
pub struct FindStream<'a, T: Document> {
    inner: BoxStream<'a, Result<Doc<T>>>,
}

/// The cursor a stream reads from.
pub(crate) enum Source<'a> {
    Plain(Cursor<RawDocumentBuf>),
    Session(SessionCursor<RawDocumentBuf>, &'a mut ClientSession),
}

impl Source<'_> {
    pub(crate) async fn next(&mut self) -> Option<mongodb::error::Result<RawDocumentBuf>> {
        match self {
            Source::Plain(cursor) => cursor.next().await,
            Source::Session(cursor, session) => cursor.next(session).await,
        }
    }
}

impl<'a, T: Document> FindStream<'a, T> {
    pub(crate) fn new(model: &'a Model<T>, source: Source<'a>) -> Self {
        let state = Some(source);
        let inner = stream::unfold(state, move |state| async move {
            let mut source = state?;
            match source.next().await? {
                Ok(raw) => Some((model.track(raw), Some(source))),
                // The cursor failed: report it and stop.
                Err(e) => Some((Err(from_driver(e, model.name())), None)),
            }
        });
        FindStream {
            inner: inner.boxed(),
        }
    }
}

impl<T: Document> Stream for FindStream<'_, T> {
    type Item = Result<Doc<T>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}
