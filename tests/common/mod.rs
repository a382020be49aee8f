//! Models and helpers shared by the integration tests.
#![allow(dead_code)]

pub mod bson;
pub mod bulk_paths;
pub mod counted;
pub mod faults;
mod guard;
pub mod leases;
pub mod monitor;
pub mod race;
pub mod values;

#[allow(unused_imports)] // each test module uses a different subset
pub use faults::{FailPoint, Fault};
#[allow(unused_imports)]
pub use guard::{element_has, element_is, guarded, in_place, rewriting, with_parents};
#[allow(unused_imports)]
pub use monitor::{Monitor, Monitored};
use odm::bson::Document as BsonDocument;
use odm::prelude::*;
#[allow(unused_imports)]
pub use race::Race;
use serde::{Deserialize, Serialize};
#[allow(unused_imports)]
pub use values::with_values;

/// A blog post in default (array versioning) mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "posts")]
pub struct Post {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    pub meta: Meta,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub note: Option<String>,
    pub numbers: Vec<i32>,
    pub comments: Vec<Comment>,
    pub notes: Vec<Note>,
    #[odm(skip_versioning)]
    pub log: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub city: String,
    pub visits: i32,
}

/// A sub-document with an `_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comment {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub text: String,
    pub replies: Vec<String>,
}

/// A sub-document without an `_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub text: String,
}

pub fn comment(text: &str) -> Comment {
    Comment {
        id: ObjectId::new(),
        text: text.into(),
        replies: vec![],
    }
}

pub fn post() -> Post {
    Post {
        id: ObjectId::new(),
        title: "first".into(),
        meta: Meta {
            city: "Oslo".into(),
            visits: 1,
        },
        note: Some("draft".into()),
        numbers: vec![1, 2, 3, 4, 5, 6],
        comments: vec![comment("a"), comment("b"), comment("c")],
        notes: vec![Note { text: "x".into() }, Note { text: "y".into() }],
        log: vec![],
    }
}

/// The API.md user, under optimistic_concurrency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users", optimistic_concurrency)]
pub struct User {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub email: String,
    pub status: String,
    pub avatar: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
}

pub fn user() -> User {
    User {
        id: ObjectId::new(),
        email: "a@b.c".into(),
        status: "NEW".into(),
        avatar: None,
        tags: vec![],
    }
}

/// The stored document, read raw (with its version key).
pub async fn stored<T: odm::Document>(
    model: &Model<T>,
    id: impl Into<odm::bson::Bson>,
) -> BsonDocument {
    model
        .collection()
        .find_one(doc! { "_id": id.into() })
        .await
        .expect("find_one")
        .expect("document stored")
}

/// Two tracked copies of one stored document.
pub async fn two_copies<T: odm::Document>(model: &Model<T>, id: ObjectId) -> (Doc<T>, Doc<T>) {
    let a = model.find_by_id(id).await.unwrap().unwrap();
    let b = model.find_by_id(id).await.unwrap().unwrap();
    (a, b)
}
