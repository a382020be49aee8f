//! Typed filters, sorts and updates, and the reads that go with them:
//! a members directory queried without one string key.
//!
//! `Member::fields().age().gte(18)` is `{ age: { $gte: 18 } }`, its value
//! checked against the field's type at compile time: `gte("18")` on a
//! number, or a misspelled field, does not compile. The filters compose
//! with `and` / `or` and with raw `doc!`, sorts with `then`, updates with
//! `and`. Values are encoded as serde stores them: the `Plan` enum is
//! compared by its stored name (`"PRO_TEAM"`).
//!
//! The read-only paths skip tracking: `lean()` decodes plain `Member`
//! values, and `projection::<MemberCard>()` asks the server for the
//! card's two fields only and decodes into it; a card has no `Document`
//! impl, so saving one does not compile.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Plan {
    Free,
    ProTeam,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "members", optimistic_concurrency)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    #[serde(rename = "_id")]
    pub id: i32,
    pub display_name: String,
    pub age: u32,
    pub plan: Plan,
    pub email: Option<String>,
    pub tags: Vec<String>,
    pub joined_at: i64,
    pub logins: i32,
}

/// What a member list shows: two fields of a member.
#[derive(Debug, Clone, Serialize, Deserialize, Fields)]
#[serde(rename_all = "camelCase")]
pub struct MemberCard {
    #[serde(rename = "_id")]
    pub id: i32,
    pub display_name: String,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// The ids of the adult paying members, newest first.
    pub adult_pro: Vec<i32>,
    /// How many members have an email.
    pub with_email: u64,
    /// Whether anyone is tagged "admin".
    pub any_admin: bool,
    /// The distinct tags, sorted.
    pub tags: Vec<String>,
    /// The distinct plans, in stored order.
    pub plans: Vec<Plan>,
    /// The estimated member count.
    pub estimated: u64,
    /// Lean members under 18 (plain values).
    pub minors: Vec<i32>,
    /// The cards of the free members, by name.
    pub free_cards: Vec<String>,
    /// The member the welcome claim took, and its logins afterwards.
    pub welcomed: Option<(i32, i32)>,
}

fn member(id: i32, name: &str, age: u32, plan: Plan, email: Option<&str>, tags: &[&str]) -> Member {
    Member {
        id,
        display_name: name.into(),
        age,
        plan,
        email: email.map(str::to_string),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        joined_at: 1_700_000_000 + i64::from(id),
        logins: 0,
    }
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let members = Member::model(db);
    for value in [
        member(
            1,
            "Ada",
            36,
            Plan::ProTeam,
            Some("ada@example.com"),
            &["admin"],
        ),
        member(2, "Bo", 16, Plan::Free, None, &["new"]),
        member(3, "Cy", 41, Plan::ProTeam, None, &["new", "beta"]),
        member(4, "Di", 29, Plan::Free, Some("di@example.com"), &[]),
        member(
            5,
            "Ed",
            17,
            Plan::ProTeam,
            Some("ed@example.com"),
            &["beta"],
        ),
    ] {
        members.create(value).await?;
    }
    let f = Member::fields();

    // Adults on the paid plan, newest first.
    let adult_pro = members
        .find(f.age().gte(18).and(f.plan().eq(Plan::ProTeam)))
        .sort(f.joined_at().desc())
        .await?;
    let adult_pro: Vec<i32> = adult_pro.iter().map(|m| m.id).collect();
    println!("adult pro members, newest first: {adult_pro:?}");

    let with_email = members
        .count(f.email().exists(true).and(f.email().ne(None)))
        .await?;
    let any_admin = members.exists(f.tags().contains("admin")).await?;
    println!("{with_email} with an email; an admin: {any_admin}");

    // Distinct values, typed by the field (an array field: its elements).
    let mut tags: Vec<String> = members.distinct(f.tags(), doc! {}).await?;
    tags.sort();
    let plans = members.distinct(f.plan(), f.age().lt(18)).await?;
    let estimated = members.estimated_count().await?;
    println!("tags {tags:?}, plans of minors {plans:?}, about {estimated} members");

    // Read-only paths: plain values, and a projection into a smaller type.
    let minors: Vec<i32> = members
        .find(f.age().lt(18))
        .sort(f.id().asc())
        .lean()
        .await?
        .into_iter()
        .map(|m| m.id)
        .collect();
    let free_cards: Vec<String> = members
        .find(f.plan().eq(Plan::Free))
        .projection::<MemberCard>()
        .sort(f.display_name().asc())
        .await?
        .into_iter()
        .map(|card| card.display_name)
        .collect();
    println!("minors {minors:?}, free members {free_cards:?}");

    // A typed update: welcome the oldest new member (the claim bumps the
    // version, so a stale tracked copy cannot overwrite it).
    let welcomed = members
        .claim(
            f.tags().contains("new"),
            f.tags().pull("new").and(f.logins().inc(1)),
        )
        .sort(f.age().desc())
        .await?
        .map(|m| (m.id, m.logins));
    println!("welcomed: {welcomed:?}");

    Ok(Outcome {
        adult_pro,
        with_email,
        any_admin,
        tags,
        plans,
        estimated,
        minors,
        free_cards,
        welcomed,
    })
}
