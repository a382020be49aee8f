//! [`PageStream`]: every item of a keyset walk, page after page.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::stream::{self, BoxStream};
use futures_util::{Stream, StreamExt};
use mongodb::bson::Bson;
use mongodb::ClientSession;

use super::{Fetched, Walk};
use crate::error::Result;
use crate::model::Document;

/// The items of a [`Paginate`](super::Paginate) walk, from
/// [`Paginate::stream`](super::Paginate::stream): each page is read when
/// the one before is used up. Inside a session the stream borrows the
/// session until it is dropped.
#[must_use = "a stream does nothing unless polled"]
pub struct PageStream<'a, V> {
    inner: BoxStream<'a, (Result<V>, Option<Vec<Bson>>)>,
    fingerprint: i64,
    last: Option<Vec<Bson>>,
}

/// Where a walk stands between items.
struct State<'a, T: Document, V> {
    walk: Walk<'a, T, V>,
    buffered: VecDeque<(Result<V>, Vec<Bson>)>,
    more: bool,
    last: Option<Vec<Bson>>,
    session: Option<&'a mut ClientSession>,
}

impl<'a, V: Send + 'a> PageStream<'a, V> {
    pub(super) fn new<T: Document>(
        walk: Walk<'a, T, V>,
        first: Fetched<V>,
        session: Option<&'a mut ClientSession>,
    ) -> Self {
        let fingerprint = walk.fingerprint;
        let state = State {
            walk,
            last: None,
            buffered: first.items.into(),
            more: first.more,
            session,
        };
        let inner = stream::unfold(Some(state), |state| async move {
            let mut state = state?;
            if state.buffered.is_empty() && state.more {
                let fetched = state
                    .walk
                    .fetch(state.last.as_deref(), state.session.as_deref_mut())
                    .await;
                match fetched {
                    Ok(fetched) => {
                        state.buffered = fetched.items.into();
                        state.more = fetched.more;
                    }
                    // The read failed: report it and stop.
                    Err(e) => return Some(((Err(e), None), None)),
                }
            }
            let (item, values) = state.buffered.pop_front()?;
            state.last = Some(values.clone());
            Some(((item, Some(values)), Some(state)))
        });
        PageStream {
            inner: inner.boxed(),
            fingerprint,
            last: None,
        }
    }
}

impl<V> PageStream<'_, V> {
    /// The continuation token after the last item delivered (`None`
    /// before the first): [`Paginate::after`](super::Paginate::after) with
    /// it goes on from the next item, in this process or another.
    pub fn next_token(&self) -> Option<String> {
        let values = self.last.as_ref()?;
        Some(super::token::encode(self.fingerprint, values.clone()))
    }
}

impl<V> Stream for PageStream<'_, V> {
    type Item = Result<V>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.inner.as_mut().poll_next(cx) {
            Poll::Ready(Some((item, values))) => {
                if values.is_some() {
                    self.last = values;
                }
                Poll::Ready(Some(item))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
