//! Index kinds: a TTL index that expires sessions, a case-insensitive
//! unique handle (a collation), a 2dsphere index for "near me" queries,
//! and a text index where the server has one.
//!
//! All are declared on the struct and created by [`Model::sync_indexes`],
//! which compares what exists with what is declared (a changed TTL or
//! collation is reported, never silently replaced) and tries the kinds a
//! server may lack first, so a refusal leaves no half-made set behind.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

/// A GeoJSON point: `{type: "Point", coordinates: [lng, lat]}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Point {
    #[serde(rename = "type")]
    pub kind: String,
    pub coordinates: [f64; 2],
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(
    collection = "riders",
    index(keys(home = "2dsphere"), name = "home_near")
)]
pub struct Rider {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// `ann` and `ANN` are the same handle.
    #[odm(unique, collation(locale = "en", strength = 2))]
    pub handle: String,
    /// The server deletes a rider a day after `last_seen`.
    #[odm(index, expire_after = 86_400)]
    pub last_seen: odm::bson::DateTime,
    pub home: Point,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(
    collection = "notices",
    index(
        keys(title = "text", body = "text"),
        weights(title = 5),
        name = "notice_search"
    )
)]
pub struct Notice {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    pub body: String,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// What the first `sync_indexes` created, in the order it did.
    pub created: Vec<String>,
    /// What the second found.
    pub existing: Vec<String>,
    /// The index that refused `ANN` after `ann`.
    pub duplicate_of: Option<String>,
    /// The riders within 5 km of the city centre.
    pub near: usize,
    /// `Ok(created)` where the server has text indexes, else the refusal.
    pub text: std::result::Result<Vec<String>, String>,
}

fn rider(handle: &str, lng: f64, lat: f64) -> Rider {
    Rider {
        id: ObjectId::new(),
        handle: handle.into(),
        last_seen: odm::bson::DateTime::now(),
        home: Point {
            kind: "Point".into(),
            coordinates: [lng, lat],
        },
    }
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let riders = Rider::model(db);
    let first = riders.sync_indexes().await?;
    let second = riders.sync_indexes().await?;
    println!(
        "sync_indexes created {:?}; run again: existing {:?}",
        first.created, second.existing
    );

    riders.create(rider("ann", 10.75, 59.91)).await?;
    riders.create(rider("bob", 10.76, 59.92)).await?;
    riders.create(rider("cat", 5.32, 60.39)).await?; // Bergen, far away
    let duplicate_of = match riders.create(rider("ANN", 10.70, 59.90)).await {
        Err(Error::DuplicateKey(e)) => {
            println!("ANN after ann: {e}");
            e.index
        }
        other => panic!("expected Error::DuplicateKey, got {other:?}"),
    };

    let near = riders
        .find(doc! { "home": { "$near": {
            "$geometry": { "type": "Point", "coordinates": [10.75, 59.91] },
            "$maxDistance": 5_000,
        } } })
        .await?
        .len();
    println!("riders within 5 km: {near}");

    let text = match Notice::model(db).sync_indexes().await {
        Ok(report) => Ok(report.created),
        Err(Error::Index(e)) => {
            println!("no text index here: {e}");
            Err(e.to_string())
        }
        Err(e) => return Err(e),
    };
    Ok(Outcome {
        created: first.created,
        existing: second.existing,
        duplicate_of,
        near,
        text,
    })
}
