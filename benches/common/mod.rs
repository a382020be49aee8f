//! The three benchmark documents of `benches/SHAPES.md` (S, M, L), built from a
//! fixed-seed generator so every run measures the same bytes.

#![allow(dead_code)] // each bench binary uses a different part

pub mod apply;
pub mod floor;
pub mod harness;
pub mod large;
pub mod stamped;

use odm::bson::raw::RawDocumentBuf;
use odm::bson::DateTime;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

/// The workspace's one seeded generator (splitmix64): the same documents,
/// byte for byte, on every run and machine.
pub use odm_testing::random::Rng;

/// `ODM_BENCH_QUICK=1` (any value but empty or `0`): every bench runs in its
/// short mode, a few ops per row with all its checks, in seconds.
pub fn quick() -> bool {
    std::env::var("ODM_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The positive integer in the environment variable `name`, else `default`
/// (at least 1).
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
        .max(1)
}

/// A fixed date (2026-01-01T00:00:00Z) plus `offset` milliseconds.
fn date(offset: i64) -> DateTime {
    DateTime::from_millis(1_767_225_600_000 + offset)
}

/// Shape S: 10 scalar fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bench_s", optimistic_concurrency)]
#[serde(rename_all = "camelCase")]
pub struct Small {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
    pub email: String,
    pub city: String,
    pub status: String,
    pub age: i32,
    pub score: f64,
    pub counter: i32,
    pub active: bool,
    pub verified: bool,
    pub created_at: DateTime,
}

/// One element of `comments`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
pub struct Comment {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub author: String,
    pub text: String,
    pub likes: i32,
}

/// The model of shapes M and L, named `$name`, stored in `$collection`,
/// with the model attributes that follow, if any: one list of fields for
/// [`Article`], [`StampedArticle`] and `benches/schema.rs`'s versioned
/// model.
macro_rules! article_model {
    ($(#[$doc:meta])* $name:ident, $collection:literal $(, $($extra:tt)+)?) => {
        $(#[$doc])*
        #[derive(
            Debug,
            Clone,
            PartialEq,
            ::serde::Serialize,
            ::serde::Deserialize,
            ::odm::Document
        )]
        #[odm(collection = $collection, optimistic_concurrency $(, $($extra)+)?)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            #[serde(rename = "_id")]
            pub id: ::odm::bson::oid::ObjectId,
            pub title: String,
            pub slug: String,
            pub author: String,
            pub email: String,
            pub category: String,
            pub summary: String,
            pub body: String,
            pub lang: String,
            pub status: String,
            pub source: String,
            pub views: i32,
            pub score: f64,
            pub rating: i32,
            pub counter: i32,
            pub word_count: i32,
            pub published: bool,
            pub featured: bool,
            pub archived: bool,
            pub created_at: ::odm::bson::DateTime,
            pub updated_at: ::odm::bson::DateTime,
            pub comments: Vec<$crate::common::Comment>,
            pub tags: Vec<String>,
        }
    };
}
// Named by `benches/schema.rs` alone.
#[allow(unused_imports)]
pub(crate) use article_model;

article_model!(
    /// Shapes M and L: 20 scalar fields, comments and tags.
    Article,
    "bench_article"
);

article_model!(
    /// [`Article`] under `#[odm(timestamps)]`: its `createdAt` and
    /// `updatedAt` are written by odm (`benches/shapes.rs`, stamped rows).
    StampedArticle,
    "bench_stamped",
    timestamps
);

pub fn small(rng: &mut Rng) -> Small {
    Small {
        id: rng.object_id(),
        name: rng.letters(16),
        email: rng.letters(24),
        city: rng.letters(12),
        status: "active".into(),
        age: 33,
        score: 1234.5,
        counter: 0,
        active: true,
        verified: false,
        created_at: date(0),
    }
}

pub fn comment(rng: &mut Rng, i: usize) -> Comment {
    Comment {
        id: rng.object_id(),
        author: rng.letters(10),
        text: rng.letters(55),
        likes: (i % 17) as i32,
    }
}

/// Shape M with `comments` comments (50), or L (2,000).
pub fn article(rng: &mut Rng, comments: usize) -> Article {
    Article {
        id: rng.object_id(),
        title: rng.letters(60),
        slug: rng.letters(60),
        author: rng.letters(20),
        email: rng.letters(28),
        category: rng.letters(12),
        summary: rng.letters(200),
        body: rng.letters(600),
        lang: "en".into(),
        status: "published".into(),
        source: rng.letters(40),
        views: 1000,
        score: 42.5,
        rating: 4,
        counter: 0,
        word_count: 812,
        published: true,
        featured: false,
        archived: false,
        created_at: date(0),
        updated_at: date(60_000),
        comments: (0..comments).map(|i| comment(rng, i)).collect(),
        tags: (0..20)
            .map(|_| format!("tag-{}", rng.letters(14)))
            .collect(),
    }
}

/// The stored form of `value`: its fields, then `__v: 0` as Mongoose writes it.
pub fn stored<T: Serialize>(value: &T) -> RawDocumentBuf {
    let mut raw = odm::bson::to_raw_document_buf(value).expect("serializes");
    raw.append("__v", 0i32);
    raw
}
