//! Many documents at once: [`Model::bulk_save`] and
//! [`Model::insert_many`], each `Doc` saved as `save()` would save it, all
//! statements sent in one bulk write, each `Doc` told its own outcome.

mod answer;
mod build;
mod commands;
mod conflicts;
mod fence;
mod path;
mod prepare;
mod read;
mod refuse;
mod resolve;
mod run;
mod send;

pub use build::build;
pub use path::BulkPath;

use mongodb::results::VerboseBulkWriteResult;
use mongodb::ClientSession;

use crate::error::Result;
use crate::lock::Lease;
use crate::model::doc::Doc;
use crate::model::Document;
use crate::model::Model;
use crate::wire::conflict_log::Operation;
use crate::wire::session::{awaitable, BoxFuture};

/// A pending [`Model::bulk_save`]; `.await` it, optionally after
/// [`session`](BulkSave::session).
#[must_use = "a bulk save does nothing until it is awaited"]
pub struct BulkSave<'a, T: Document> {
    pub(crate) model: &'a Model<T>,
    pub(crate) docs: &'a mut [Doc<T>],
    pub(crate) path: BulkPath,
    /// The token of a fenced batch.
    pub(crate) fence: Option<i64>,
    pub(crate) session: Option<&'a mut ClientSession>,
}

/// A pending [`Model::insert_many`]; `.await` it, optionally after
/// [`session`](InsertMany::session).
#[must_use = "an insert does nothing until it is awaited"]
pub struct InsertMany<'a, T: Document> {
    pub(crate) model: &'a Model<T>,
    pub(crate) values: Vec<T>,
    pub(crate) path: BulkPath,
    pub(crate) session: Option<&'a mut ClientSession>,
}

/// A batch that applies the model's referential rules (`refs`), when the
/// model has them: see [`guard`](crate::model::guard).
pub(crate) type BulkSaveGuard<T> =
    for<'a> fn(BulkSave<'a, T>) -> BoxFuture<'a, Result<Vec<Result<()>>>>;

/// [`BulkSaveGuard`] of `insert_many`.
pub(crate) type InsertManyGuard<T> =
    for<'a> fn(InsertMany<'a, T>) -> BoxFuture<'a, Result<Vec<Result<Doc<T>>>>>;

impl<T: Document> Model<T> {
    /// Saves every `Doc` of `docs` (new and loaded, in any mix) as
    /// [`Doc::save`] would, sending all their writes in one bulk write
    /// (unordered; split at the server's limits into as few commands as
    /// they allow), and tells each `Doc` its own outcome, in order: `Ok`,
    /// [`Error::Version`](crate::Error::Version),
    /// [`Error::NotFound`](crate::Error::NotFound),
    /// [`Error::DuplicateKey`](crate::Error::DuplicateKey) naming the index,
    /// [`Error::Validation`](crate::Error::Validation) (nothing of that
    /// `Doc` sent), a hook's error, or the driver's error of a write whose
    /// outcome is unknown.
    ///
    /// A `Doc` whose write landed commits its snapshot and version; one
    /// whose write did not keeps its pending changes and version. A write
    /// whose outcome is unknown (a lost connection, a write concern error,
    /// the future dropped while the batch was sent) leaves its `Doc` in
    /// doubt as after `save()`: its next version-bumping save also checks
    /// the version, so a change that landed is not applied twice.
    ///
    /// Where the server does not say why an update matched nothing (a
    /// guarded array change, a `Doc` with nothing to write), one more read
    /// of the batch's ids tells it, as `save()` does with one read each.
    ///
    /// The outer `Err` means no `Doc` could be told an outcome of its own:
    /// the batch was refused before anything was sent
    /// ([`Error::Batch`](crate::Error::Batch): a `_id` given twice, a `Doc`
    /// of another collection; then no hook ran either), or the whole bulk
    /// write failed with its outcome unknown. An empty `docs` sends
    /// nothing.
    ///
    /// Hooks run per `Doc`: every `before_save` before the batch is sent,
    /// `after_save` of each `Doc` whose write landed after it.
    ///
    /// A server without the `bulkWrite` command (before MongoDB 8.0) gets
    /// one unordered `insert` and one unordered `update` command instead
    /// (split at `hello`'s limits). The `update` command reports only how
    /// many statements matched; where that count does not tell each one,
    /// one read of the batch's documents does: a `Doc` is committed only if
    /// its document reads exactly as it would commit, and one that may have
    /// landed and been overwritten since is told in doubt (the driver's
    /// error "the server's answer does not tell whether this statement was
    /// applied", never a version miss) and left in doubt. Where the server
    /// has `bulkWrite` it is used, since its answer per statement needs no
    /// read.
    pub fn bulk_save<'a>(&'a self, docs: &'a mut [Doc<T>]) -> BulkSave<'a, T> {
        BulkSave {
            model: self,
            docs,
            path: BulkPath::Auto,
            fence: None,
            session: None,
        }
    }

    /// Inserts `values` as new documents, each as its `Doc`'s first
    /// [`save`](Doc::save) would (validators, `before_save`, an `ObjectId`
    /// generated for a missing `_id` before anything is sent, timestamps,
    /// version 0), in one bulk write; one outcome per value, in order: the
    /// stored `Doc`, or why that value was not inserted. Outer `Err` as for
    /// [`bulk_save`](Model::bulk_save).
    pub fn insert_many(&self, values: impl IntoIterator<Item = T>) -> InsertMany<'_, T> {
        InsertMany {
            model: self,
            values: values.into_iter().collect(),
            path: BulkPath::Auto,
            session: None,
        }
    }
}

impl<'a, T: Document> BulkSave<'a, T> {
    /// Makes every write of the batch a fenced write under `lease`, as
    /// [`Save::fenced`](crate::Save::fenced) makes one `save()`: each
    /// update matches only if its document's stored fence (`__fence`) is
    /// absent or not larger than [`lease.token()`](Lease::token), and
    /// stores the token there (a `Doc` with nothing else to write still
    /// writes the fence); each insert stores it too. The batch is sent
    /// with `w: majority` (inside a transaction, the commit's), and read
    /// back from the primary.
    ///
    /// A `Doc` whose document already holds a larger token (a newer
    /// holder wrote it) is told [`Error::Fenced`](crate::Error::Fenced)
    /// and keeps its pending changes; nothing of it changed. The others
    /// get their own outcomes as in an unfenced batch: a stale `Doc` under
    /// a valid lease still fails with
    /// [`Error::Version`](crate::Error::Version), and every `Doc` whose
    /// write landed commits. Which misses the fence refused is read, not
    /// guessed: with the read that settles the batch's other misses, one
    /// at most per batch. A miss the server's count leaves in doubt (see
    /// [`Model::bulk_save`]) is told a version miss, never a refusal.
    ///
    /// One document is fenced by one lease key: every `Doc` of a fenced
    /// batch is fenced by the same one.
    pub fn fenced(mut self, lease: &Lease) -> Self {
        self.fence = Some(lease.token());
        self
    }

    /// Sends the batch `path`'s way instead of the server's (tests run
    /// one batch both ways). Not public API.
    #[doc(hidden)]
    pub fn path(mut self, path: BulkPath) -> Self {
        self.path = path;
        self
    }
}

impl<'a, T: Document> InsertMany<'a, T> {
    /// Sends the batch `path`'s way instead of the server's (tests run
    /// one batch both ways). Not public API.
    #[doc(hidden)]
    pub fn path(mut self, path: BulkPath) -> Self {
        self.path = path;
        self
    }
}

awaitable! {
    impl['a, T: Document] BulkSave<'a, T> => Result<Vec<Result<()>>>;
    /// Runs the bulk save inside `session` (and its transaction, if one is
    /// open).
    session;
    into_future(self) async move {
        match crate::model::guard::<T, BulkSaveGuard<T>>() {
            Some(guarded) => guarded(self).await,
            None => self.unguarded().await,
        }
    }
}

impl<'a, T: Document> BulkSave<'a, T> {
    /// The batch, without the referential rules' step.
    pub(crate) fn unguarded(self) -> BoxFuture<'a, Result<Vec<Result<()>>>> {
        Box::pin(run::run(
            self.model,
            self.docs,
            self.path,
            self.fence,
            self.session,
            Operation::BulkSave,
        ))
    }
}

awaitable! {
    impl['a, T: Document] InsertMany<'a, T> => Result<Vec<Result<Doc<T>>>>;
    /// Runs the inserts inside `session` (and its transaction, if one is
    /// open).
    session;
    into_future(self) async move {
        match crate::model::guard::<T, InsertManyGuard<T>>() {
            Some(guarded) => guarded(self).await,
            None => self.unguarded().await,
        }
    }
}

impl<'a, T: Document> InsertMany<'a, T> {
    /// The inserts, without the referential rules' step.
    pub(crate) fn unguarded(self) -> BoxFuture<'a, Result<Vec<Result<Doc<T>>>>> {
        Box::pin(async move {
            let model = self.model;
            let mut docs: Vec<Doc<T>> = self.values.into_iter().map(|v| model.new_doc(v)).collect();
            let operation = Operation::InsertMany;
            let outcomes =
                run::run(model, &mut docs, self.path, None, self.session, operation).await?;
            Ok(docs
                .into_iter()
                .zip(outcomes)
                .map(|(doc, outcome)| outcome.map(|()| doc))
                .collect())
        })
    }
}

impl crate::wire::command_log::Answer for VerboseBulkWriteResult {
    fn brief(&self) -> String {
        let s = &self.summary;
        format!(
            "inserted {}, matched {}, modified {}",
            s.inserted_count, s.matched_count, s.modified_count
        )
    }
}
