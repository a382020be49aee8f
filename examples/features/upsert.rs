//! The first request of a new user reaches several instances at once.
//!
//! "Find the user, insert it if missing" lets every request see no user
//! and insert one: duplicates. [`Model::upsert`] is one atomic
//! `findOneAndUpdate(upsert)`: `$set` applies on every request,
//! `$setOnInsert` only on the request that inserts. A unique index on the
//! filter field stops a second insert when two upserts race; odm resends
//! the loser's upsert, which then finds and updates the winner's document.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "visitors")]
#[serde(rename_all = "camelCase")]
pub struct Visitor {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The upsert's filter field: unique, as an upsert needs.
    #[odm(unique)]
    pub email: String,
    /// Written once, by the request that inserted (`$setOnInsert`).
    pub first_request: i64,
    /// Written by every request (`$set`).
    pub last_request: i64,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    pub requests: i64,
    /// Requests whose upsert inserted the user (the returned document is the
    /// one this request's own update left, so it knows).
    pub inserted: usize,
    /// Users stored with the email.
    pub stored: u64,
    pub first_request: i64,
}

const REQUESTS: i64 = 10;

/// One request of `email`: insert the user if it is new, touch it always.
async fn request(visitors: &Model<Visitor>, email: &str, i: i64) -> odm::Result<Doc<Visitor>> {
    visitors
        .upsert(doc! { "email": email })
        .set(doc! { "lastRequest": i })
        .set_on_insert(doc! { "_id": ObjectId::new(), "firstRequest": i })
        .await
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let visitors = Visitor::model(db);
    // Creates the unique index `email_1` (nothing if it exists already).
    visitors.sync_indexes().await?;
    let email = "ann@example.com";

    // Ten first requests of the same new user, all at once.
    let tasks: Vec<_> = (0..REQUESTS)
        .map(|i| {
            let visitors = visitors.clone();
            tokio::spawn(async move { (i, request(&visitors, email, i).await) })
        })
        .collect();
    let mut inserted = 0;
    for task in tasks {
        let (i, visitor) = task.await.expect("task");
        let visitor = visitor?;
        if visitor.first_request == i {
            println!("request {i}: inserted the user");
            inserted += 1;
        }
    }
    let stored = visitors.count(doc! { "email": email }).await?;
    println!("{REQUESTS} first requests at once: {inserted} insert, {stored} user stored");

    // A later request updates the user; $setOnInsert leaves firstRequest.
    let later = request(&visitors, email, 99).await?;
    println!(
        "a later request: firstRequest still {}, lastRequest now {}",
        later.first_request, later.last_request
    );
    Ok(Outcome {
        requests: REQUESTS,
        inserted,
        stored,
        first_request: later.first_request,
    })
}
