//! One collection shared by Mongoose services and odm services (issue 21):
//! a document written by Mongoose (its version key an Int32, sub-documents
//! with their own `_id`) loads and saves in odm with the same `__v` type
//! and meaning, odm's inserts look like Mongoose's, and the writes each
//! side sends keep the other's edits. Mongoose's writes are sent raw,
//! exactly as Mongoose sends them (filter and update), so no Node runtime
//! is needed.

use crate::common;

use common::{element_has, in_place, stored};
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Comment {
    #[serde(rename = "_id")]
    id: ObjectId,
    text: String,
    votes: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "interop_posts")]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    tags: Vec<String>,
    comments: Vec<Comment>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "interop_strict_posts", optimistic_concurrency)]
struct StrictPost {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    tags: Vec<String>,
}

/// A post as `Model.create()` of Mongoose stores it: fields in schema
/// order, an `_id` in every sub-document, `__v` last, an Int32.
fn mongoose_post(id: ObjectId, c: ObjectId, version: i32) -> BsonDocument {
    doc! {
        "_id": id,
        "title": "hello",
        "tags": ["c", "a", "b"],
        "comments": [{ "_id": c, "text": "first", "votes": 1 }],
        "__v": Bson::Int32(version),
    }
}

fn version_of(stored: &BsonDocument) -> &Bson {
    stored.get("__v").expect("a version key")
}

#[tokio::test]
async fn a_mongoose_document_saves_in_odm_keeping_an_int32_version() {
    let t = TestDb::new().await;
    let m = Post::model(&t.db);
    let (id, c) = (ObjectId::new(), ObjectId::new());
    m.collection()
        .insert_one(mongoose_post(id, c, 2))
        .await
        .unwrap();
    let mut post = m.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(post.version(), Some(2));
    // An in-place edit checks the version as Mongoose does (an Int32 in the
    // filter) and does not bump it; odm's positional guard also requires
    // the comment and its votes as loaded (the stored Int32 `1`).
    post.comments[0].votes = 2;
    assert_eq!(
        post.changes(),
        Some((
            in_place(
                doc! { "_id": id, "__v": Bson::Int32(2) },
                vec![element_has(
                    "comments",
                    0,
                    &[("_id", Some(c.into())), ("votes", Some(Bson::Int32(1)))]
                )]
            ),
            doc! { "$set": { "comments.0.votes": 2 } }
        ))
    );
    post.save().await.unwrap();
    assert_eq!(version_of(&stored(&m, id).await), &Bson::Int32(2));
    // A push bumps it: `$inc` by an Int32 keeps the Int32.
    post.tags.push("d".into());
    post.save().await.unwrap();
    assert_eq!(version_of(&stored(&m, id).await), &Bson::Int32(3));
    // A removed sub-document is pulled by `_id`, as Mongoose pulls it.
    post.comments.clear();
    assert_eq!(
        post.changes().unwrap().1,
        doc! { "$pull": { "comments": { "_id": { "$in": [c] } } }, "$inc": { "__v": 1 } }
    );
    post.save().await.unwrap();
    assert_eq!(
        stored(&m, id).await,
        doc! {
            "_id": id,
            "title": "hello",
            "tags": ["c", "a", "b", "d"],
            "comments": [],
            "__v": Bson::Int32(4),
        }
    );
    assert_eq!(post.version(), Some(4));
    t.finish().await;
}

#[tokio::test]
async fn odm_inserts_the_version_as_mongoose_does() {
    let t = TestDb::new().await;
    let m = Post::model(&t.db);
    let id = ObjectId::new();
    let mut post = m
        .create(Post {
            id,
            title: "t".into(),
            tags: vec![],
            comments: vec![],
        })
        .await
        .unwrap();
    // `__v: 0`, an Int32, after the fields: what Mongoose reads back as the
    // Number 0 (and writes itself).
    let raw = stored(&m, id).await;
    assert_eq!(raw.keys().last().map(String::as_str), Some("__v"));
    assert_eq!(version_of(&raw), &Bson::Int32(0));
    post.tags.push("x".into());
    post.save().await.unwrap();
    assert_eq!(version_of(&stored(&m, id).await), &Bson::Int32(1));
    t.finish().await;
}

// Mongoose's in-place edit (`doc.tags.set(1, ..)`, or `doc.tags[1] = ..`
// then save) is `{_id, __v}` / `$set tags.1`, no bump; an odm copy loaded
// before it that sorts the array fails instead of dropping the edit.
#[tokio::test]
async fn a_mongoose_in_place_edit_survives_a_stale_odm_rewrite() {
    let t = TestDb::new().await;
    let m = Post::model(&t.db);
    let (id, c) = (ObjectId::new(), ObjectId::new());
    m.collection()
        .insert_one(mongoose_post(id, c, 0))
        .await
        .unwrap();
    let mut odm_copy = m.find_by_id(id).await.unwrap().unwrap();
    let mongoose = m
        .collection()
        .update_one(
            doc! { "_id": id, "__v": 0 },
            doc! { "$set": { "tags.1": "z" } },
        )
        .await
        .unwrap();
    assert_eq!(mongoose.matched_count, 1);
    odm_copy.tags.sort();
    assert!(matches!(odm_copy.save().await, Err(odm::Error::Version(_))));
    assert_eq!(
        stored(&m, id).await.get_array("tags").unwrap(),
        &vec![Bson::from("c"), Bson::from("z"), Bson::from("b")]
    );
    t.finish().await;
}

// Mongoose's push (`$push` + `$inc`, no check) and odm's push both land;
// a stale positional edit on either side then fails on the version.
#[tokio::test]
async fn pushes_of_both_land_and_stale_positional_edits_fail() {
    let t = TestDb::new().await;
    let m = Post::model(&t.db);
    let (id, c) = (ObjectId::new(), ObjectId::new());
    m.collection()
        .insert_one(mongoose_post(id, c, 0))
        .await
        .unwrap();
    let mut odm_copy = m.find_by_id(id).await.unwrap().unwrap();
    let mut stale = m.find_by_id(id).await.unwrap().unwrap();
    m.collection()
        .update_one(
            doc! { "_id": id },
            doc! { "$push": { "tags": { "$each": ["m"] } }, "$inc": { "__v": 1 } },
        )
        .await
        .unwrap();
    odm_copy.tags.push("o".into());
    odm_copy.save().await.unwrap();
    stale.tags[0] = "edited".into();
    assert!(matches!(stale.save().await, Err(odm::Error::Version(_))));
    // Mongoose's stale positional edit, checked against the version it
    // loaded (0), matches nothing either.
    let mongoose = m
        .collection()
        .update_one(
            doc! { "_id": id, "__v": 0 },
            doc! { "$set": { "tags.0": "edited" } },
        )
        .await
        .unwrap();
    assert_eq!(mongoose.matched_count, 0);
    let raw = stored(&m, id).await;
    assert_eq!(
        raw.get_array("tags").unwrap(),
        &vec![
            Bson::from("c"),
            Bson::from("a"),
            Bson::from("b"),
            Bson::from("m"),
            Bson::from("o")
        ]
    );
    assert_eq!(version_of(&raw), &Bson::Int32(2));
    t.finish().await;
}

// Mongoose's own hole, which odm cannot close from its side: Mongoose's
// whole-array `$set` (an assignment, a sort) checks the version it loaded
// but not the array, so in default mode it drops an in-place edit made
// since (by odm or by Mongoose). With `optimistic_concurrency` on both
// sides (Mongoose's `optimisticConcurrency: true`) every save bumps, and
// the stale Mongoose save matches nothing.
#[tokio::test]
async fn under_optimistic_concurrency_a_mixed_fleet_loses_nothing() {
    let t = TestDb::new().await;
    let m = StrictPost::model(&t.db);
    let id = ObjectId::new();
    m.collection()
        .insert_one(doc! { "_id": id, "title": "t", "tags": ["c", "a", "b"], "__v": 0 })
        .await
        .unwrap();
    let mut odm_copy = m.find_by_id(id).await.unwrap().unwrap();
    odm_copy.tags[1] = "z".into();
    assert_eq!(
        odm_copy.changes(),
        Some((
            doc! { "_id": id, "__v": 0 },
            doc! { "$set": { "tags.1": "z" }, "$inc": { "__v": 1 } }
        ))
    );
    odm_copy.save().await.unwrap();
    // A Mongoose copy loaded at version 0 sorts and saves.
    let mongoose = m
        .collection()
        .update_one(
            doc! { "_id": id, "__v": 0 },
            doc! { "$set": { "tags": ["a", "b", "c"] }, "$inc": { "__v": 1 } },
        )
        .await
        .unwrap();
    assert_eq!(mongoose.matched_count, 0);
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "title": "t", "tags": ["c", "z", "b"], "__v": Bson::Int32(1) }
    );
    // And the other way round: Mongoose's save bumps, odm's stale one fails.
    let mut stale = m.find_by_id(id).await.unwrap().unwrap();
    m.collection()
        .update_one(
            doc! { "_id": id, "__v": 1 },
            doc! { "$set": { "title": "from node" }, "$inc": { "__v": 1 } },
        )
        .await
        .unwrap();
    stale.tags[0] = "y".into();
    assert!(matches!(stale.save().await, Err(odm::Error::Version(_))));
    t.finish().await;
}
