//! [`AggregateStream`]: the results of an aggregation, one at a time.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::stream::{self, BoxStream};
use futures_util::{Stream, StreamExt};
use mongodb::bson::raw::RawDocumentBuf;
use serde::de::DeserializeOwned;

use crate::codec;
use crate::error::{from_driver, Result};
use crate::model::stream::Source;

/// The results of an [`Aggregate`](super::Aggregate), from
/// [`Aggregate::stream`](super::Aggregate::stream), as the server's cursor
/// delivers them. A result that does not decode is one
/// [`Error::Deserialize`](crate::Error::Deserialize) item and the stream
/// goes on; a cursor error is the last item.
#[must_use = "a stream does nothing unless polled"]
pub struct AggregateStream<'a, R> {
    inner: BoxStream<'a, Result<R>>,
}

impl<'a, R: DeserializeOwned + 'a> AggregateStream<'a, R> {
    pub(super) fn new(collection: &'a str, source: Source<'a>) -> Self {
        let inner = stream::unfold(Some(source), move |state| async move {
            let mut source = state?;
            match source.next().await? {
                Ok(raw) => Some((decode(&raw, collection), Some(source))),
                Err(e) => Some((Err(from_driver(e, collection)), None)),
            }
        });
        AggregateStream {
            inner: inner.boxed(),
        }
    }
}

impl<R> Stream for AggregateStream<'_, R> {
    type Item = Result<R>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// A result as an `R`, every field kept (a result is not a stored
/// document: no version key is hidden); a failure names the result's
/// `_id` (when it has one) and the field.
fn decode<R: DeserializeOwned>(raw: &RawDocumentBuf, collection: &str) -> Result<R> {
    match codec::decode::<R>(raw, codec::Hidden::NONE) {
        Ok(value) => Ok(value),
        Err((hidden, e)) => Err(codec::deserialize_error::<R>(
            &hidden,
            collection,
            e.to_string(),
        )),
    }
}
