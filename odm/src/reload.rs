//! `doc.reload()`: re-read the stored document, dropping local changes.

use std::future::IntoFuture;

use mongodb::ClientSession;

use crate::codec;
use crate::doc::Doc;
use crate::document::Document;
use crate::error::Result;
use crate::request;
use crate::save::BoxFuture;

/// A pending [`Doc::reload`]; `.await` it, optionally after
/// [`session`](Reload::session).
#[must_use = "nothing is read until it is awaited"]
pub struct Reload<'a, T: Document> {
    doc: &'a mut Doc<T>,
    session: Option<&'a mut ClientSession>,
}

impl<T: Document> Doc<T> {
    /// Re-reads the document by its `_id` (and shard key), dropping local
    /// changes. [`Error::NotFound`](crate::Error::NotFound) for a new
    /// document or one that is gone; then the `Doc` is unchanged.
    pub fn reload(&mut self) -> Reload<'_, T> {
        Reload {
            doc: self,
            session: None,
        }
    }
}

impl<'a, T: Document> Reload<'a, T> {
    /// Reads inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }
}

impl<'a, T: Document> IntoFuture for Reload<'a, T> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let doc = self.doc;
            let Some(target) = doc.target() else {
                return Err(request::not_found(
                    doc.model().name(),
                    mongodb::bson::Document::new(),
                ));
            };
            match doc.model().find_raw(target.clone(), self.session).await? {
                Some(raw) => doc.replace(codec::load::<T>(raw, doc.model().name())?),
                None => Err(request::not_found(doc.model().name(), target)),
            }
        })
    }
}
