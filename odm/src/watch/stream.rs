//! [`ChangeStream`]: the driver's change stream, its events typed.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;
use mongodb::bson::raw::RawDocumentBuf;
use mongodb::change_stream::ChangeStream as DriverStream;

use super::event::{parse, ChangeEvent};
use super::token::ResumeToken;
use crate::error::{from_driver, Result};
use crate::model::Document;
use crate::wire::command_log::Answer;

/// A `Stream` of the changes to a model's collection, from
/// [`Model::watch`](crate::Model::watch): each item is one
/// [`ChangeEvent`], or the error of one event (a full document that does
/// not load into `T` is one [`Error::Deserialize`](crate::Error::Deserialize)
/// item, and the stream goes on).
///
/// The stream waits for changes: it ends only when the server ends it (the
/// collection is dropped or renamed: an `Invalidate` event comes last).
/// When the connection fails or the server answers with a resumable error,
/// the driver opens the stream again after the last event it delivered, so
/// no change is missed or delivered twice.
#[must_use = "a stream does nothing unless polled"]
pub struct ChangeStream<T: Document> {
    inner: DriverStream<RawDocumentBuf>,
    ns: String,
    collection: String,
    _type: std::marker::PhantomData<fn() -> T>,
}

impl<T: Document> ChangeStream<T> {
    pub(crate) fn new(inner: DriverStream<RawDocumentBuf>, ns: String, collection: String) -> Self {
        ChangeStream {
            inner,
            ns,
            collection,
            _type: std::marker::PhantomData,
        }
    }

    /// The token that resumes after the last event delivered (or, before
    /// any, where the stream started); store it to go on later with
    /// [`Watch::resume_after`](super::Watch::resume_after).
    pub fn resume_token(&self) -> Option<ResumeToken> {
        let token = self.inner.resume_token()?;
        Some(ResumeToken::new(self.ns.clone(), token))
    }

    /// Whether the stream can still deliver events.
    pub fn is_alive(&self) -> bool {
        self.inner.is_alive()
    }

    /// The next event if the server has one now: at most one request,
    /// `None` when its batch was empty. Then
    /// [`resume_token`](ChangeStream::resume_token) is the server's latest,
    /// the one to store while nothing changes.
    pub async fn next_if_any(&mut self) -> Result<Option<ChangeEvent<T>>> {
        match self.inner.next_if_any().await {
            Ok(Some(raw)) => parse(&raw, &self.ns, &self.collection).map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(from_driver(e, &self.collection)),
        }
    }
}

impl<T: Document> Stream for ChangeStream<T> {
    type Item = Result<ChangeEvent<T>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(raw))) => {
                Poll::Ready(Some(parse(&raw, &this.ns, &this.collection)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(from_driver(e, &this.collection)))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: Document> std::fmt::Debug for ChangeStream<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChangeStream")
            .field("namespace", &self.ns)
            .finish()
    }
}

impl<T: serde::de::DeserializeOwned> Answer for DriverStream<T> {
    fn brief(&self) -> String {
        "change stream".to_string()
    }
}
