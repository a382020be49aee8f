//! Issue 9, items 3 and 4: assignments and replaced sub-documents bump the
//! version.

use odm::bson::doc;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

use crate::save_regressions::assert_stored;
use crate::save_regressions::common::rewriting;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Comment {
    #[serde(rename = "_id")]
    id: ObjectId,
    text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "threads")]
struct Thread {
    #[serde(rename = "_id")]
    id: ObjectId,
    tags: Vec<String>,
    comments: Vec<Comment>,
}

fn comment(text: &str) -> Comment {
    Comment {
        id: ObjectId::new(),
        text: text.into(),
    }
}

async fn thread(model: &Model<Thread>) -> (Doc<Thread>, Doc<Thread>) {
    let id = model
        .create(Thread {
            id: ObjectId::new(),
            tags: vec!["a".into(), "b".into()],
            comments: vec![comment("first"), comment("second")],
        })
        .await
        .unwrap()
        .id;
    (
        model.find_by_id(id).await.unwrap().unwrap(),
        model.find_by_id(id).await.unwrap().unwrap(),
    )
}

pub async fn a_same_length_assignment_makes_a_stale_whole_array_write_fail() {
    let t = TestDb::new().await;
    let model = Thread::model(&t.db);
    let (mut a, mut b) = thread(&model).await;
    a.tags = vec!["x".into(), "y".into()];
    assert_eq!(
        a.changes().unwrap(),
        (
            // The rewrite guard (save-rules.md): the rewrite also
            // requires what this copy loaded there.
            rewriting(doc! { "_id": a.id, "__v": 0 }, "tags", vec!["a", "b"]),
            doc! { "$set": { "tags": ["x", "y"] }, "$inc": { "__v": 1 } }
        )
    );
    a.save().await.unwrap();
    b.tags.insert(0, "z".into());
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_stored(&model, &a).await;

    // Edits that keep an element in place stay positional, and two copies
    // editing different elements both land.
    let (mut a, mut b) = thread(&model).await;
    a.tags[0] = "A".into();
    b.tags[1] = "B".into();
    assert_eq!(a.changes().unwrap().1, doc! { "$set": { "tags.0": "A" } });
    a.save().await.unwrap();
    b.save().await.unwrap();
    let stored = model.find_by_id(a.id).await.unwrap().unwrap();
    assert_eq!(stored.tags, ["A", "B"]);
    t.finish().await;
}

pub async fn a_sub_document_replaced_or_moved_makes_stale_positional_edits_fail() {
    let t = TestDb::new().await;
    let model = Thread::model(&t.db);

    // Moved: A swaps the two comments; B edits the text of comment 0.
    let (mut a, mut b) = thread(&model).await;
    a.comments.swap(0, 1);
    let (_, update) = a.changes().unwrap();
    assert!(update.contains_key("$inc"), "{update}");
    assert!(update
        .get_document("$set")
        .unwrap()
        .contains_key("comments"));
    a.save().await.unwrap();
    b.comments[0].text = "edited".into();
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_stored(&model, &a).await;

    // Replaced at the same length: pull one, push another.
    let (mut a, mut b) = thread(&model).await;
    a.comments.remove(1);
    a.comments.push(comment("third"));
    a.save().await.unwrap();
    b.comments[1].text = "edited".into();
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_stored(&model, &a).await;
    let stored = model.find_by_id(a.id).await.unwrap().unwrap();
    assert_eq!(stored.comments[1].text, "third");
    t.finish().await;
}
