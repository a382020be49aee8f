//! A nightly job closes every expired session, and a cleanup deletes the
//! closed ones: `update_many` and `delete_many`.
//!
//! Falling back to the raw collection skips validation, timestamps and
//! the version key, so a tracked copy a request still holds would
//! overwrite the job's write without noticing. [`Model::update_many`] is
//! one command that bumps the version of every matched document: the
//! request's stale save fails with `Error::Version` instead.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "sessions", optimistic_concurrency)]
pub struct Session {
    #[serde(rename = "_id")]
    pub id: i64,
    #[odm(one_of("open", "expired"))]
    pub state: String,
    pub expires: i64,
    pub note: Option<String>,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// Sessions `update_many` matched and changed.
    pub expired: (u64, u64),
    /// The stale copy's save was refused with `Error::Version`.
    pub stale_refused: bool,
    /// A `$set` the field rules refuse was refused before sending.
    pub bad_value_refused: bool,
    /// Sessions `delete_many` deleted.
    pub deleted: u64,
    /// Sessions left.
    pub left: u64,
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let sessions = Session::model(db);
    for (id, expires) in [(1, 10), (2, 20), (3, 99)] {
        let session = Session {
            id,
            state: "open".into(),
            expires,
            note: None,
        };
        sessions.create(session).await?;
    }
    // A request holds session 1 while the job runs.
    let mut held = sessions.find_by_id(1).await?.expect("stored");

    let report = sessions
        .update_many(
            doc! { "state": "open", "expires": { "$lt": 50 } },
            doc! { "$set": { "state": "expired" } },
        )
        .await?;
    println!(
        "expired {} of {} matched",
        report.modified(),
        report.matched()
    );

    held.note = Some("late write".into());
    let stale_refused = matches!(held.save().await, Err(Error::Version(_)));
    println!("the request's stale save refused: {stale_refused}");

    let bad = sessions
        .update_many(doc! {}, doc! { "$set": { "state": "bogus" } })
        .await;
    let bad_value_refused = matches!(bad, Err(Error::Validation(_)));
    println!("a value the rules refuse: {bad:?}");

    let deleted = sessions.delete_many(doc! { "state": "expired" }).await?;
    println!("deleted {deleted} expired sessions");
    Ok(Outcome {
        expired: (report.matched(), report.modified()),
        stale_refused,
        bad_value_refused,
        deleted,
        left: sessions.count(doc! {}).await?,
    })
}
