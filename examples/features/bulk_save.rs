//! A nightly job closes every expired session: hundreds of tracked
//! documents changed at once.
//!
//! A `save()` loop pays one round trip per document. [`Model::bulk_save`]
//! sends all the changes in one bulk write and still tells each `Doc` its
//! own outcome, as `save()` would: here one session was extended by its
//! user while the job ran, so its versioned save fails with
//! `Error::Version` (nothing of it written, its changes kept), and every
//! other session is closed and committed.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "sessions", optimistic_concurrency)]
pub struct Session {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub user: String,
    pub open: bool,
    pub expires: i64,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    pub sessions: usize,
    pub closed: usize,
    /// Sessions whose save failed with `Error::Version`.
    pub stale: usize,
    /// Sessions stored as closed.
    pub closed_stored: u64,
}

const SESSIONS: usize = 200;

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let sessions = Session::model(db);
    let values = (0..SESSIONS).map(|i| Session {
        id: ObjectId::new(),
        user: format!("user{i}"),
        open: true,
        expires: i as i64,
    });
    // One bulk write inserts them all; each value gets its own outcome.
    for created in sessions.insert_many(values).await? {
        created?;
    }

    // The job loads the expired sessions and closes them in memory.
    let mut expired = sessions.find(doc! { "open": true }).await?;
    for session in expired.iter_mut() {
        session.open = false;
    }
    // Meanwhile a user extends their session: the job's copy is stale.
    let mut extended = sessions
        .find_one(doc! { "user": "user7" })
        .await?
        .expect("stored");
    extended.expires = 10_000;
    extended.save().await?;

    // One round trip; one outcome per Doc, in order.
    let outcomes = sessions.bulk_save(&mut expired).await?;
    let (mut closed, mut stale) = (0, 0);
    for (session, outcome) in expired.iter().zip(&outcomes) {
        match outcome {
            Ok(()) => closed += 1,
            Err(Error::Version(e)) => {
                // Not written: the Doc keeps its change; reload and decide again.
                println!("{} changed meanwhile: {e}", session.user);
                stale += 1;
            }
            Err(e) => println!("{}: {e}", session.user),
        }
    }
    let closed_stored = sessions.count(doc! { "open": false }).await?;
    println!("{SESSIONS} sessions: {closed} closed in one bulk write, {stale} stale");
    Ok(Outcome {
        sessions: SESSIONS,
        closed,
        stale,
        closed_stored,
    })
}
