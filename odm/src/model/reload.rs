//! `doc.reload()`: re-read the stored document, dropping local changes.

use mongodb::ClientSession;

use crate::codec;
use crate::error::Result;
use crate::model::doc::Doc;
use crate::model::Document;
use crate::plan::request;
use crate::wire::session::awaitable;

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

awaitable! {
    impl['a, T: Document] Reload<'a, T> => Result<()>;
    /// Reads inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        let doc = self.doc;
        let Some(target) = doc.target() else {
            return Err(request::not_found(
                doc.model().name(),
                mongodb::bson::Document::new(),
            ));
        };
        match doc.model().find_raw(target.clone(), self.session).await? {
            Some(raw) => doc.replace(codec::load_with::<T>(
                raw,
                doc.model().name(),
                &crate::schema::layout::<T>(),
                T::__odm_fast_decode,
            )?),
            None => Err(request::not_found(doc.model().name(), target)),
        }
    }
}
