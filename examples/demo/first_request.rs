//! 1. The first request of a new user reaches several instances at once:
//!    "find the user, update it if found, insert it if not".

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{join, pause, timed, Ctx, Measure, Scenario};

pub const SCENARIO: Scenario = Scenario {
    title: "first request of a new user",
    unit: "duplicates",
    per: "new users",
    naive: "find, then insert",
    odm: &["upsert + $setOnInsert"],
};

/// Without an index on `email`: nothing stops a second insert.
#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "visitors_naive")]
#[serde(rename_all = "camelCase")]
pub struct NaiveVisitor {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub email: String,
    pub round: i64,
    pub first_seen: i64,
    pub last_seen: i64,
}

/// The upsert's filter field is unique, as an upsert needs.
#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "visitors")]
#[serde(rename_all = "camelCase")]
pub struct Visitor {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[odm(unique)]
    pub email: String,
    pub round: i64,
    pub first_seen: i64,
    pub last_seen: i64,
}

const REQUESTS: usize = 4;

pub async fn round(ctx: &Ctx, round: usize) -> odm::Result<Vec<Measure>> {
    let users = 2 * ctx.size.n;
    let naive = NaiveVisitor::model(&ctx.db);
    let naive = timed(async {
        let mut tasks = Vec::new();
        for i in 0..users * REQUESTS {
            let (naive, email) = (naive.clone(), email(round, i % users));
            tasks.push(tokio::spawn(async move {
                match naive.find_one(doc! { "email": &email }).await? {
                    Some(mut visitor) => {
                        pause(i).await;
                        visitor.last_seen = i as i64;
                        visitor.save().await
                    }
                    None => {
                        pause(i).await;
                        let visitor = NaiveVisitor {
                            id: ObjectId::new(),
                            email,
                            round: round as i64,
                            first_seen: i as i64,
                            last_seen: i as i64,
                        };
                        naive.create(visitor).await.map(drop)
                    }
                }
            }));
        }
        join(tasks).await?;
        let stored = naive.count(doc! { "round": round as i64 }).await?;
        Ok((stored - users as u64, users as u64))
    })
    .await?;

    let visitors = Visitor::model(&ctx.db);
    visitors.sync_indexes().await?;
    let odm = timed(async {
        let mut tasks = Vec::new();
        for i in 0..users * REQUESTS {
            let (visitors, email) = (visitors.clone(), email(round, i % users));
            tasks.push(tokio::spawn(async move {
                visitors
                    .upsert(doc! { "email": email })
                    .set(doc! { "lastSeen": i as i64 })
                    .set_on_insert(doc! {
                        "_id": ObjectId::new(),
                        "round": round as i64,
                        "firstSeen": i as i64,
                    })
                    .await
            }));
        }
        join(tasks).await?;
        let stored = visitors.count(doc! { "round": round as i64 }).await?;
        Ok((stored.abs_diff(users as u64), users as u64))
    })
    .await?;
    Ok(vec![naive, odm])
}

fn email(round: usize, user: usize) -> String {
    format!("user{user}.round{round}@example.com")
}
