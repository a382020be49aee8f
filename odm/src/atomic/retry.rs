//! `Model::update_with_retry`: read-modify-write without lost updates.

use mongodb::bson::Bson;
use mongodb::ClientSession;

use crate::error::{Error, Result};
use crate::model::doc::Doc;
use crate::model::Document;
use crate::model::Model;
use crate::plan::request::not_found;
use crate::plan::request::retry::Retry;
use crate::wire::conflict_log::{self, Operation, Site};
use crate::wire::session::{awaitable, send};

/// A pending [`Model::update_with_retry`]; optionally
/// [`session`](UpdateWithRetry::session), then `.await` it.
#[must_use = "an update does nothing until it is awaited"]
pub struct UpdateWithRetry<'a, T: Document, F> {
    model: &'a Model<T>,
    id: Bson,
    attempts: usize,
    apply: F,
    session: Option<&'a mut ClientSession>,
}

impl<T: Document> Model<T> {
    /// Loads the document with this `_id`, applies `apply` to it, validates
    /// and saves it with a version check; when another writer got there
    /// first ([`Error::Version`](crate::Error::Version)) loads it again and applies `apply` to the
    /// fresh copy, up to `attempts` tries in all (`0` counts as `1`). Returns
    /// the saved document, or the last version error once the tries are
    /// spent.
    ///
    /// The save always checks and bumps the version when `apply` changed
    /// something, with or without `optimistic_concurrency` (as if
    /// [`Doc::increment`] had been called), so two concurrent updates never
    /// both succeed on the same version: no update is lost. When `apply`
    /// changes nothing, nothing is written and the loaded document is
    /// returned.
    ///
    /// `apply` runs once per try, each time on a freshly loaded value, so
    /// it must derive the change from that value (`counter += 1`), not from
    /// state captured on an earlier try. An error from `apply`, a validation
    /// failure, or any other error stops at once and is returned. A missing
    /// document is [`Error::NotFound`](crate::Error::NotFound). With `versioning = false` there is
    /// nothing to check: the save is a plain one and is tried once.
    ///
    /// ```no_run
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # struct Counter { #[serde(rename = "_id")] id: String, value: i64 }
    /// # async fn run(counters: Model<Counter>) -> odm::Result<()> {
    /// let counter = counters
    ///     .update_with_retry("hits", 10, |c: &mut Counter| {
    ///         c.value += 1;
    ///         Ok(())
    ///     })
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn update_with_retry<F>(
        &self,
        id: impl Into<Bson>,
        attempts: usize,
        apply: F,
    ) -> UpdateWithRetry<'_, T, F>
    where
        F: FnMut(&mut T) -> Result<()> + Send,
    {
        UpdateWithRetry {
            model: self,
            id: id.into(),
            attempts,
            apply,
            session: None,
        }
    }
}

awaitable! {
    impl['a, T, F] UpdateWithRetry<'a, T, F> where [T: Document, F: FnMut(&mut T) -> Result<()> + Send + 'a] => Result<Doc<T>>;
    /// Loads and saves inside `session` (and its transaction, if one is
    /// open). Inside a transaction a concurrent writer shows up as a
    /// transient write conflict, which ends this call and is retried by
    /// [`transaction`](crate::transaction) as a whole.
    session;
    into_future(self) run(self)
}

async fn run<T, F>(this: UpdateWithRetry<'_, T, F>) -> Result<Doc<T>>
where
    T: Document,
    F: FnMut(&mut T) -> Result<()> + Send,
{
    let UpdateWithRetry {
        model,
        id,
        attempts,
        mut apply,
        mut session,
    } = this;
    let mut retry = Retry::new(id, attempts);
    let site = Site {
        model: T::__odm_meta().name,
        collection: model.name(),
        operation: Operation::UpdateWithRetry,
    };
    let mut retries = 0;
    loop {
        let loaded = model.find_raw(retry.filter.clone(), session.as_deref_mut());
        let Some(raw) = loaded.await? else {
            return Err(not_found(model.name(), retry.filter));
        };
        let mut doc = model.track(raw)?;
        apply(&mut doc)?;
        if doc.plan()?.changes.is_empty() {
            return Ok(doc);
        }
        // Checked and bumped whatever the model's concurrency mode.
        doc.increment();
        let save = doc.save().retrying(retry.last());
        match send(save, session.as_deref_mut()).await {
            Ok(()) => return Ok(doc),
            Err(e) if retry.again(&e) => {
                retries += 1;
                if let Error::Version(e) = &e {
                    conflict_log::retried(site, e, retries);
                }
                continue;
            }
            Err(e) => {
                conflict_log::failed(site, &e);
                return Err(e);
            }
        }
    }
}
