//! Issue 9, item 5: fields the store lacks, filled in by `#[serde(default)]`.

use odm::bson::doc;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

use crate::save_regressions::assert_stored;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Profile {
    name: String,
    age: i32,
}

fn starter_tags() -> Vec<String> {
    vec!["new".into(), "member".into()]
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Entry {
    text: String,
    #[serde(default = "starter_tags")]
    labels: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "members")]
struct Member {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
    #[serde(default)]
    profile: Profile,
    #[serde(default = "starter_tags")]
    tags: Vec<String>,
    #[serde(default)]
    entries: Vec<Entry>,
}

/// A member document as older code stored it: no profile, no tags, entries
/// without labels.
async fn old_member(model: &Model<Member>) -> Doc<Member> {
    let id = ObjectId::new();
    model
        .collection()
        .insert_one(doc! {
            "_id": id, "email": "a@b.c", "__v": 0,
            "entries": [{ "text": "one" }, { "text": "two" }],
        })
        .await
        .unwrap();
    model.find_by_id(id).await.unwrap().unwrap()
}

pub async fn changes_under_a_missing_defaulted_field_set_it_whole() {
    let t = TestDb::new().await;
    let model = Member::model(&t.db);

    let mut doc = old_member(&model).await;
    assert_eq!(doc.tags, starter_tags());
    assert_eq!(doc.changes(), None, "a filled-in default is no change");
    doc.profile.name = "Ann".into();
    doc.tags.push("admin".into());
    doc.entries[1].labels.push("x".into());
    let (filter, update) = doc.changes().unwrap();
    // The rewrite guard (save-rules.md): a field set whole because
    // the store lacked it requires it still absent, so it cannot replace
    // what another copy stored there (and a third edited in place) since.
    let absent = || doc! { "$exists": false };
    assert_eq!(
        filter,
        doc! {
            "_id": doc.id,
            "__v": 0,
            "profile": absent(),
            "tags": absent(),
            "entries.1.labels": absent(),
        }
    );
    assert_eq!(
        update,
        doc! {
            "$set": {
                "profile": { "name": "Ann", "age": 0 },
                "tags": ["new", "member", "admin"],
                "entries.1.labels": ["new", "member", "x"],
            },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;

    // Stored now: the next change is an ordinary one.
    doc.profile.age = 30;
    doc.tags.push("owner".into());
    assert_eq!(
        doc.changes().unwrap().1,
        doc! {
            "$set": { "profile.age": 30 },
            "$push": { "tags": { "$each": ["owner"] } },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;

    // entries.0 still lacks labels: an in-place edit of it fills them.
    doc.entries[0].labels[0] = "old".into();
    assert_eq!(
        doc.changes().unwrap().1,
        doc! {
            "$set": { "entries.0.labels": ["old", "member"] },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;
    t.finish().await;
}

pub async fn two_copies_filling_one_missing_field_do_not_lose_a_write() {
    let t = TestDb::new().await;
    let model = Member::model(&t.db);
    let mut a = old_member(&model).await;
    let mut b = model.find_by_id(a.id).await.unwrap().unwrap();
    a.profile.name = "Ann".into();
    a.save().await.unwrap();
    b.profile.age = 40;
    assert!(
        matches!(b.save().await, Err(Error::Version(_))),
        "B would overwrite A's profile with its own whole profile"
    );
    assert_stored(&model, &a).await;
    b.reload().await.unwrap();
    b.profile.age = 40;
    assert_eq!(
        b.changes().unwrap().1,
        doc! { "$set": { "profile.age": 40 } }
    );
    b.save().await.unwrap();
    let stored = model.find_by_id(a.id).await.unwrap().unwrap();
    assert_eq!(
        stored.profile,
        Profile {
            name: "Ann".into(),
            age: 40
        }
    );
    t.finish().await;
}

pub async fn a_pull_before_a_missing_path_keeps_later_fills_right() {
    let t = TestDb::new().await;
    let model = Member::model(&t.db);
    let mut doc = old_member(&model).await;
    // Entry 1 lacks labels; after entry 0 is removed it is entry 0.
    doc.entries.remove(0);
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;
    doc.entries[0].labels.push("y".into());
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;
    t.finish().await;
}
