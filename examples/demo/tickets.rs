//! 3. One free ticket per user: a user clicks "participate" many times at
//!    once, and the code checks for a ticket before inserting one.

use std::time::Duration;

use odm::lock::{KeyedMutex, Leases};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{join, pause, timed, Ctx, Measure, Scenario};

pub const SCENARIO: Scenario = Scenario {
    title: "one ticket per user",
    unit: "extra tickets",
    per: "users",
    naive: "check, then insert",
    odm: &[
        "partial unique index",
        "KeyedMutex (one process)",
        "Leases (3 clients)",
    ],
};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "tickets")]
pub struct Ticket {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub event: i64,
    pub user: String,
    pub free: bool,
}

/// At most one free ticket per user and event, kept by the database.
#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(
    collection = "unique_tickets",
    index(
        keys(event = 1, user = 1),
        unique,
        partial(free = true),
        name = "one_free_ticket"
    )
)]
pub struct UniqueTicket {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub event: i64,
    pub user: String,
    pub free: bool,
}

const CLICKS: usize = 5;

/// The naive rule: no free ticket yet, so insert one.
async fn participate(tickets: &Model<Ticket>, event: i64, user: &str, i: usize) -> Result<()> {
    let filter = doc! { "event": event, "user": user, "free": true };
    if tickets.find_one(filter).await?.is_none() {
        pause(i).await;
        let ticket = Ticket {
            id: ObjectId::new(),
            event,
            user: user.into(),
            free: true,
        };
        tickets.create(ticket).await?;
    }
    Ok(())
}

pub async fn round(ctx: &Ctx, round: usize) -> odm::Result<Vec<Measure>> {
    let users = ctx.size.n;
    let event = move |way: i64| round as i64 * 10 + way;
    let clicks = || (0..users * CLICKS).map(|i| (i, format!("user{}", i % users)));
    let tickets = Ticket::model(&ctx.db);
    let extra = |model: Model<Ticket>, event: i64| async move {
        let stored = model.count(doc! { "event": event }).await?;
        Ok((stored.abs_diff(users as u64), users as u64))
    };

    let naive = timed(async {
        let tasks = clicks()
            .map(|(i, user)| {
                let tickets = tickets.clone();
                tokio::spawn(async move { participate(&tickets, event(0), &user, i).await })
            })
            .collect();
        join(tasks).await?;
        extra(tickets.clone(), event(0)).await
    })
    .await?;

    let unique = UniqueTicket::model(&ctx.db);
    unique.sync_indexes().await?;
    let index = timed(async {
        let tasks = clicks()
            .map(|(i, user)| {
                let unique = unique.clone();
                tokio::spawn(async move {
                    // The same check-then-insert; the index refuses the losers.
                    let filter = doc! { "event": event(1), "user": &user, "free": true };
                    if unique.find_one(filter).await?.is_some() {
                        return Ok(());
                    }
                    pause(i).await;
                    let ticket = UniqueTicket {
                        id: ObjectId::new(),
                        event: event(1),
                        user,
                        free: true,
                    };
                    match unique.create(ticket).await {
                        Ok(_) | Err(Error::DuplicateKey(_)) => Ok(()),
                        Err(e) => Err(e),
                    }
                })
            })
            .collect();
        join(tasks).await?;
        let stored = unique.count(doc! { "event": event(1) }).await?;
        Ok((stored.abs_diff(users as u64), users as u64))
    })
    .await?;

    let mutex: KeyedMutex<String> = KeyedMutex::new();
    let keyed = timed(async {
        let tasks = clicks()
            .map(|(i, user)| {
                let (tickets, mutex) = (tickets.clone(), mutex.clone());
                tokio::spawn(async move {
                    let _guard = mutex.lock(user.clone()).await;
                    participate(&tickets, event(2), &user, i).await
                })
            })
            .collect();
        join(tasks).await?;
        extra(tickets.clone(), event(2)).await
    })
    .await?;

    let leased = timed(async {
        let tasks = clicks()
            .map(|(i, user)| {
                // Each click lands on one of the instances, each its own client.
                let db = ctx.instances[i % ctx.instances.len()].clone();
                tokio::spawn(async move {
                    let leases = Leases::new(&db, "locks");
                    let key = format!("ticket:{}:{user}", event(3));
                    let lease = leases.acquire(key, Duration::from_secs(10)).await?;
                    participate(&Ticket::model(&db), event(3), &user, i).await?;
                    lease.release().await
                })
            })
            .collect();
        join(tasks).await?;
        extra(tickets.clone(), event(3)).await
    })
    .await?;
    Ok(vec![naive, index, keyed, leased])
}
