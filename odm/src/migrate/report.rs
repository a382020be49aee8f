//! What a [`migrate_all`](crate::Model::migrate_all) did: the report at
//! the end, and the progress after each batch.

use std::time::Duration;

use mongodb::bson::Bson;

use crate::error::Error;

/// What [`Model::migrate_all`](crate::Model::migrate_all) did.
///
/// Every document it read at an older schema version is in exactly one
/// count: [`upgraded`](MigrationReport::upgraded) by this run,
/// [`current`](MigrationReport::current) (already at the model's version,
/// counted at the start, plus those another writer upgraded while this run
/// had them in hand), or [`failed`](MigrationReport::failed), with why.
#[derive(Debug)]
#[non_exhaustive]
pub struct MigrationReport {
    /// Documents this run upgraded (each written once).
    pub upgraded: u64,
    /// Documents found at the model's schema version.
    pub current: u64,
    /// Documents found at a schema version above the model's (written by a
    /// newer instance): left as they are.
    pub newer: u64,
    /// The documents that could not be upgraded: their `_id` and why (a
    /// step failed: [`Error::Migration`]; the upgraded document does not
    /// load: [`Error::Deserialize`]; a validator or hook refused it; or it
    /// kept changing under other writers). Nothing of them was written.
    pub failed: Vec<(Bson, Error)>,
    /// The batches read.
    pub batches: u64,
    /// How long the run took.
    pub elapsed: Duration,
}

impl MigrationReport {
    /// Documents this run upgraded.
    pub fn upgraded(&self) -> u64 {
        self.upgraded
    }
    /// Documents found at the model's schema version.
    pub fn current(&self) -> u64 {
        self.current
    }
    /// Documents found above the model's schema version (left as they are).
    pub fn newer(&self) -> u64 {
        self.newer
    }
    /// The documents that could not be upgraded, with why.
    pub fn failed(&self) -> &[(Bson, Error)] {
        &self.failed
    }
    /// The batches read.
    pub fn batches(&self) -> u64 {
        self.batches
    }
    /// How long the run took.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }
    /// Documents upgraded per second.
    pub fn rate(&self) -> f64 {
        rate(self.upgraded, self.elapsed)
    }
}

/// Where a [`migrate_all`](crate::Model::migrate_all) stands after a
/// batch, given to its [`on_progress`](crate::MigrateAll::on_progress)
/// callback (and logged as a `tracing` event, target `odm::migrate`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MigrationProgress {
    /// The collection.
    pub collection: String,
    /// The batch just done (from 1).
    pub batch: u64,
    /// Documents upgraded so far.
    pub upgraded: u64,
    /// Documents found current so far (those counted at the start
    /// included).
    pub current: u64,
    /// Documents that failed so far.
    pub failed: u64,
    /// The documents at an older schema version counted at the start;
    /// others may be written meanwhile (an older instance's inserts).
    pub older_at_start: u64,
    /// Time since the run started.
    pub elapsed: Duration,
}

impl MigrationProgress {
    /// Documents upgraded per second so far.
    pub fn rate(&self) -> f64 {
        rate(self.upgraded, self.elapsed)
    }
    /// The share of the documents counted at the start that are done
    /// (upgraded, found current meanwhile, or failed), from 0 to 1.
    pub fn done(&self) -> f64 {
        if self.older_at_start == 0 {
            return 1.0;
        }
        let done = self.upgraded + self.failed;
        (done as f64 / self.older_at_start as f64).min(1.0)
    }
}

fn rate(count: u64, elapsed: Duration) -> f64 {
    let seconds = elapsed.as_secs_f64();
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}
