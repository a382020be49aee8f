//! [`Model::migrate_all`]: every document stored at an older schema
//! version upgraded, in batches, each batch written by one
//! [`bulk_save`](Model::bulk_save).
//!
//! A document loaded at an older schema version is upgraded in memory
//! (see `#[odm(schema_version = N, migrate = path)]`), and its save writes
//! the upgrade under the version contract: its filter holds the schema
//! version (and the version) it read. `migrate_all` is that, for every
//! older document:
//!
//! - **Batches.** It reads the older documents (`{__sv: {$lt: N}}` or no
//!   `__sv`) in `_id` order, `batch_size` at a time, upgrades each in
//!   memory and saves the batch with one `bulk_save` (validators and
//!   hooks run, timestamps are stamped, as for any save).
//! - **Safe beside live writers.** A document written between its read
//!   and its upgrade (an edit, another instance's lazy upgrade) fails its
//!   statement (`Error::Version`) and is never overwritten: it is read
//!   again and, if still older, upgraded again from what is stored now.
//! - **Resumable.** Only older documents are read, and an upgrade's filter
//!   requires the schema version it read, so a run stopped midway (an
//!   error, a crash, a deploy) and run again upgrades the rest and nothing
//!   twice.
//! - **Progress.** After each batch, a `tracing` event (target
//!   `odm::migrate`, level INFO: the counts and the rate) and the
//!   [`on_progress`](MigrateAll::on_progress) callback.
//! - **Errors.** A document whose step fails (`Error::Migration`), whose
//!   upgraded form does not load (`Error::Deserialize`), or that a
//!   validator or hook refuses, is reported in
//!   [`MigrationReport::failed`] with its `_id`; nothing of it is written,
//!   and the rest of its batch goes on. An error of the server or the
//!   network stops the run (`Err`); running it again goes on where it
//!   stopped.

mod report;
mod settle;

pub use report::{MigrationProgress, MigrationReport};

use std::time::Instant;

use futures_util::StreamExt;
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use mongodb::ClientSession;

use crate::error::{Error, Result};
use crate::model::doc::Doc;
use crate::model::Document;
use crate::model::Model;
use crate::plan::versioning::int;
use crate::wire::session::{awaitable, send};

/// The batch size of a [`migrate_all`](Model::migrate_all) unless set.
pub const DEFAULT_BATCH_SIZE: usize = 500;

/// A progress callback of [`MigrateAll::on_progress`].
type OnProgress<'a> = Box<dyn FnMut(&MigrationProgress) + Send + 'a>;

/// A pending [`Model::migrate_all`]; `.await` it, optionally after
/// [`batch_size`](MigrateAll::batch_size),
/// [`on_progress`](MigrateAll::on_progress) and
/// [`session`](MigrateAll::session).
#[must_use = "a migration does nothing until it is awaited"]
pub struct MigrateAll<'a, T: Document> {
    model: &'a Model<T>,
    batch_size: usize,
    on_progress: Option<OnProgress<'a>>,
    session: Option<&'a mut ClientSession>,
}

impl<T: Document> Model<T> {
    /// Upgrades every document stored at a schema version below the
    /// model's (`#[odm(schema_version = N, migrate = path)]`) to it, in
    /// batches of [`batch_size`](MigrateAll::batch_size) (500 unless set),
    /// each written with one [`bulk_save`](Model::bulk_save). Safe beside
    /// live writers and resumable: see the [module](crate::migrate) docs.
    ///
    /// ```no_run
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # #[odm(collection = "users", schema_version = 1, migrate = Self::upgrade)]
    /// # struct User { #[serde(rename = "_id")] id: ObjectId, email: String }
    /// # impl User {
    /// #     fn upgrade(_: &mut odm::bson::Document, _: u32) -> Result<(), MigrationError> { Ok(()) }
    /// # }
    /// # async fn run(users: Model<User>) -> odm::Result<()> {
    /// let report = users
    ///     .migrate_all()
    ///     .batch_size(1_000)
    ///     .on_progress(|p: &MigrationProgress| {
    ///         println!("{:.0}% done, {:.0} documents/s", p.done() * 100.0, p.rate())
    ///     })
    ///     .await?;
    /// for (id, why) in report.failed() {
    ///     eprintln!("{id}: {why}");
    /// }
    /// println!("{} upgraded, {} already current", report.upgraded(), report.current());
    /// # Ok(()) }
    /// ```
    ///
    /// A model without a schema version has nothing to upgrade: the report
    /// is empty and nothing is sent.
    pub fn migrate_all(&self) -> MigrateAll<'_, T> {
        MigrateAll {
            model: self,
            batch_size: DEFAULT_BATCH_SIZE,
            on_progress: None,
            session: None,
        }
    }
}

impl<'a, T: Document> MigrateAll<'a, T> {
    /// How many documents each batch reads and writes (at least 1).
    pub fn batch_size(mut self, documents: usize) -> Self {
        self.batch_size = documents.max(1);
        self
    }

    /// Calls `report` after each batch with the progress so far.
    pub fn on_progress(mut self, report: impl FnMut(&MigrationProgress) + Send + 'a) -> Self {
        self.on_progress = Some(Box::new(report));
        self
    }
}

awaitable! {
    impl['a, T: Document] MigrateAll<'a, T> => Result<MigrationReport>;
    /// Runs every read and write of the migration inside `session` (and
    /// its transaction, if one is open).
    session;
    into_future(self) run(self.model, self.batch_size, self.on_progress, self.session)
}

/// The older documents of a model with schema version `current` under
/// `key`: below it, or without one.
pub(crate) fn older(key: &str, current: u32) -> BsonDocument {
    doc! { "$or": [
        { key: { "$lt": int(i64::from(current)) } },
        { key: { "$exists": false } },
    ] }
}

/// The filter of the next batch: the older documents after `last` in
/// `_id` order, or from the start without the ones that `failed`.
pub(crate) fn batch_filter(
    older: &BsonDocument,
    last: Option<&Bson>,
    failed: &[Bson],
) -> BsonDocument {
    match last {
        Some(last) => doc! { "$and": [older.clone(), { "_id": { "$gt": last.clone() } }] },
        None if failed.is_empty() => older.clone(),
        None => doc! { "$and": [older.clone(), { "_id": { "$nin": failed.to_vec() } }] },
    }
}

async fn run<T: Document>(
    model: &Model<T>,
    batch_size: usize,
    mut on_progress: Option<OnProgress<'_>>,
    mut session: Option<&mut ClientSession>,
) -> Result<MigrationReport> {
    let started = Instant::now();
    let mut report = MigrationReport {
        upgraded: 0,
        current: 0,
        newer: 0,
        failed: Vec::new(),
        batches: 0,
        elapsed: Default::default(),
    };
    let Some(schema) = T::__odm_meta().schema else {
        return Ok(report);
    };
    let at = int(i64::from(schema.current));
    let older = older(schema.key, schema.current);
    report.current = send(
        model.count(doc! { schema.key: at.clone() }),
        session.as_deref_mut(),
    )
    .await?;
    report.newer = send(
        model.count(doc! { schema.key: { "$gt": at } }),
        session.as_deref_mut(),
    )
    .await?;
    let older_at_start = send(model.count(older.clone()), session.as_deref_mut()).await?;
    let mut last: Option<Bson> = None;
    loop {
        let failed_ids: Vec<Bson> = report.failed.iter().map(|(id, _)| id.clone()).collect();
        let filter = batch_filter(&older, last.as_ref(), &failed_ids);
        let (mut docs, errors, batch_last) =
            read_batch(model, filter, batch_size, session.as_deref_mut()).await?;
        if docs.is_empty() && errors.is_empty() {
            if last.is_none() {
                break;
            }
            // The keyset skips `_id`s of other types and documents an older
            // instance inserted behind it: look once more from the start.
            last = None;
            continue;
        }
        last = batch_last;
        report.batches += 1;
        report.failed.extend(errors);
        // A document another writer upgraded between the count and the
        // read is not read (the filter); every one read needs its upgrade.
        let outcomes = send(model.bulk_save(&mut docs), session.as_deref_mut()).await?;
        for (doc, outcome) in docs.iter().zip(outcomes) {
            let id = doc.stored_id().cloned().unwrap_or(Bson::Null);
            match outcome {
                Ok(()) => report.upgraded += 1,
                // Written since it was read: read again, upgrade again.
                Err(Error::Version(_) | Error::NotFound(_)) => {
                    let settled = settle::settle(model, &id, session.as_deref_mut()).await?;
                    settle::count(&mut report, id, settled);
                }
                Err(e) => report.failed.push((id, e)),
            }
        }
        report.elapsed = started.elapsed();
        let progress = MigrationProgress {
            collection: model.name().to_string(),
            batch: report.batches,
            upgraded: report.upgraded,
            current: report.current,
            failed: report.failed.len() as u64,
            older_at_start,
            elapsed: report.elapsed,
        };
        tracing::info!(
            target: "odm::migrate",
            collection = %progress.collection,
            batch = progress.batch,
            upgraded = progress.upgraded,
            current = progress.current,
            failed = progress.failed,
            per_second = progress.rate(),
            "schema migration batch"
        );
        if let Some(report) = on_progress.as_mut() {
            report(&progress);
        }
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

/// One batch: the documents of `filter` in `_id` order, at most `size`,
/// each loaded (so upgraded in memory); those that do not load, with
/// their `_id`s; and the last `_id` read.
async fn read_batch<T: Document>(
    model: &Model<T>,
    filter: BsonDocument,
    size: usize,
    session: Option<&mut ClientSession>,
) -> Result<(Vec<Doc<T>>, Vec<(Bson, Error)>, Option<Bson>)> {
    let limit = i64::try_from(size).unwrap_or(i64::MAX);
    let find = model
        .find(filter)
        .sort(doc! { "_id": 1 })
        .limit(limit)
        .batch_size(u32::try_from(size).unwrap_or(u32::MAX));
    let find = match session {
        Some(session) => find.session(session),
        None => find,
    };
    let mut stream = find.stream().await?;
    let (mut docs, mut errors, mut last) = (Vec::new(), Vec::new(), None);
    while let Some(item) = stream.next().await {
        match item {
            Ok(doc) => {
                last = doc.stored_id().cloned();
                docs.push(doc);
            }
            Err(e) => match failed_id(&e) {
                Some(id) => {
                    last = Some(id.clone());
                    errors.push((id, e));
                }
                // The cursor itself failed.
                None => return Err(e),
            },
        }
    }
    Ok((docs, errors, last))
}

/// The `_id` a load error names: a step that failed, or an upgraded
/// document that does not load.
fn failed_id(e: &Error) -> Option<Bson> {
    match e {
        Error::Migration(e) => Some(e.id().clone()),
        Error::Deserialize(e) => Some(e.id.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_documents_are_below_the_version_or_without_one() {
        assert_eq!(
            older("__sv", 3),
            doc! { "$or": [{ "__sv": { "$lt": 3 } }, { "__sv": { "$exists": false } }] }
        );
    }

    #[test]
    fn a_batch_goes_on_after_the_last_id_or_starts_over_without_the_failed() {
        let older = older("v", 1);
        assert_eq!(batch_filter(&older, None, &[]), older);
        assert_eq!(
            batch_filter(&older, Some(&Bson::Int32(7)), &[Bson::Int32(1)]),
            doc! { "$and": [older.clone(), { "_id": { "$gt": 7 } }] }
        );
        assert_eq!(
            batch_filter(&older, None, &[Bson::Int32(1), Bson::Int32(4)]),
            doc! { "$and": [older.clone(), { "_id": { "$nin": [1, 4] } }] }
        );
    }

    #[test]
    fn a_failed_load_names_its_id() {
        let e = Error::Migration(Box::new(crate::error::MigrationError::new("x").at(
            "c",
            &Bson::Int32(3),
            0,
        )));
        assert_eq!(failed_id(&e), Some(Bson::Int32(3)));
        let other = Error::Driver(crate::error::raised("gone"));
        assert_eq!(failed_id(&other), None);
    }
}
