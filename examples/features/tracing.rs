//! See every command odm sends, like Mongoose's debug mode.
//!
//! odm reports each command as a `tracing` event with target
//! `odm::command`: at DEBUG the collection, the operation, the shape of
//! its filter and update (keys and operators, values shown as `?`), how
//! long it took and its outcome; at TRACE a second event with the values.
//! Credentials never appear. Any `tracing` subscriber shows them; here
//! `tracing-subscriber`'s `fmt`, to a writer of the caller's choice.

use odm::prelude::*;
use serde::{Deserialize, Serialize};
use tracing::Level;
use tracing_subscriber::fmt::MakeWriter;

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "users", optimistic_concurrency)]
pub struct User {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[odm(unique)]
    pub email: String,
    pub status: String,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// The stale copy's save was refused with `Error::Version`.
    pub stale_refused: bool,
    /// Users left at the end.
    pub left: u64,
}

/// A subscriber printing odm's events up to `level` to `writer`, one line
/// each, without timestamps.
pub fn subscriber<W>(writer: W, level: Level) -> impl tracing::Subscriber + Send + Sync
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_max_level(level)
        .without_time()
        .finish()
}

/// Some ordinary work; every command it sends is logged.
pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let users = User::model(db);
    users.sync_indexes().await?; // listIndexes, createIndexes
    let id = ObjectId::new();
    users
        .create(User {
            id,
            email: "ann@example.com".into(),
            status: "NEW".into(),
        })
        .await?; // insert

    let mut fresh = users.find_by_id(id).await?.expect("stored"); // find
    let mut stale = users.find_by_id(id).await?.expect("stored"); // find
    fresh.status = "ACTIVE".into();
    fresh.save().await?; // update, matched

    // The stale copy's update matches nothing: the log shows it as sent
    // (outcome ok: the server answered), and the save fails.
    stale.status = "BANNED".into();
    let stale_refused = matches!(stale.save().await, Err(Error::Version(_)));

    fresh.delete().await?; // delete
    let left = users.count(doc! {}).await?; // count
    Ok(Outcome {
        stale_refused,
        left,
    })
}
