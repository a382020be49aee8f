//! Release 3 of a service changes the `users` schema a second time: the
//! first release stored `mail` and `full_name`, the second renamed `mail`
//! to `email` (schema version 1), this one splits `full_name` into `name`
//! (schema version 2). The deploy is rolling: instances of release 2 keep
//! running while release 3 starts.
//!
//! 1. A new instance serves at once: every read upgrades an older
//!    document in memory, and its next save writes the upgrade.
//! 2. An instance of the previous release still reads the upgraded
//!    document, but never writes it: its save fails with `Error::Schema`.
//! 3. The deploy's migration step, `migrate_all`, upgrades every document
//!    still at an older version, in batches, with progress; it is safe
//!    beside the live instances, and resumable (run it again after a crash
//!    and it finishes the rest).

use odm::bson::{doc, Document as BsonDocument};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

/// Release 3: schema version 2.
#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "users", schema_version = 2, migrate = Self::upgrade)]
pub struct User {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub email: String,
    pub name: Name,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Name {
    pub first: String,
    pub last: String,
}

impl User {
    /// One step: `from` -> `from + 1`, on the stored document.
    fn upgrade(doc: &mut BsonDocument, from: u32) -> Result<(), MigrationError> {
        match from {
            0 => {
                let mail = doc.remove("mail").ok_or(MigrationError::new("no `mail`"))?;
                doc.insert("email", mail);
            }
            1 => {
                let full = doc
                    .remove("full_name")
                    .ok_or(MigrationError::new("no `full_name`"))?;
                let full = full.as_str().unwrap_or_default().to_string();
                let (first, last) = full.split_once(' ').unwrap_or((&full, ""));
                doc.insert("name", doc! { "first": first, "last": last });
            }
            _ => return Err(MigrationError::new(format!("no step from version {from}"))),
        }
        Ok(())
    }
}

/// Release 2, still running during the deploy: schema version 1.
#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "users", schema_version = 1, migrate = Self::upgrade)]
pub struct UserRelease2 {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub email: String,
    #[serde(default)]
    pub full_name: String,
}

impl UserRelease2 {
    fn upgrade(doc: &mut BsonDocument, from: u32) -> Result<(), MigrationError> {
        match from {
            0 => {
                let mail = doc.remove("mail").ok_or(MigrationError::new("no `mail`"))?;
                doc.insert("email", mail);
                Ok(())
            }
            _ => Err(MigrationError::new(format!("no step from version {from}"))),
        }
    }
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// The schema version the first document read was stored at.
    pub first_read_from: Option<u32>,
    /// The older release's save of an upgraded document was refused.
    pub old_release_refused: bool,
    pub upgraded: u64,
    pub current: u64,
    /// Batches reported by the progress callback.
    pub batches: usize,
    /// Documents still at an older version after the migration.
    pub older_left: u64,
}

const USERS: usize = 300;

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let users = User::model(db);
    // The documents the first two releases wrote.
    let stored: Vec<BsonDocument> = (0..USERS)
        .map(|i| match i % 2 {
            0 => doc! { "_id": ObjectId::new(), "mail": format!("u{i}@x.io"), "full_name": format!("Ann {i}"), "__v": 0 },
            _ => doc! { "_id": ObjectId::new(), "email": format!("u{i}@x.io"), "full_name": format!("Bo {i}"), "__v": 0, "__sv": 1 },
        })
        .collect();
    users.collection().insert_many(stored).await?;

    // 1. A new instance reads and writes right away.
    let mut first = users.find_one(doc! {}).await?.expect("stored");
    let first_read_from = first.migrated_from();
    println!(
        "release 3 reads {} (stored at schema version {:?}): {:?}",
        first.email, first_read_from, first.name
    );
    first.name.last = "Lee".into();
    first.save().await?; // the upgrade and the edit, in one write

    // 2. Release 2 still runs: it reads the upgraded document, never writes it.
    let old = UserRelease2::model(db);
    let mut stale = old.find_by_id(first.id).await?.expect("stored");
    stale.full_name = "Overwritten".into();
    let old_release_refused = match stale.save().await {
        Err(Error::Schema(e)) => {
            println!("release 2: {e}");
            true
        }
        other => {
            other?;
            false
        }
    };

    // 3. The deploy's migration step.
    let mut batches = 0;
    let report = users
        .migrate_all()
        .batch_size(100)
        .on_progress(|p: &MigrationProgress| {
            batches += 1;
            println!(
                "batch {}: {} upgraded, {:.0}% done, {:.0} documents/s",
                p.batch,
                p.upgraded,
                p.done() * 100.0,
                p.rate()
            );
        })
        .await?;
    for (id, why) in report.failed() {
        println!("not upgraded: {id}: {why}");
    }
    println!(
        "migrate_all: {} upgraded, {} already current, {} failed",
        report.upgraded(),
        report.current(),
        report.failed().len()
    );
    let older_left = users
        .count(doc! { "$or": [{ "__sv": { "$lt": 2 } }, { "__sv": { "$exists": false } }] })
        .await?;
    Ok(Outcome {
        first_read_from,
        old_release_refused,
        upgraded: report.upgraded(),
        current: report.current(),
        batches,
        older_left,
    })
}
