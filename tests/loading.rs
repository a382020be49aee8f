//! Loading: queries, hydration, and stored documents that do not fit the
//! type (the error names the document id and the field).

use crate::common;

use common::*;
use odm::prelude::*;
use odm_testing::TestDb;

#[tokio::test]
async fn find_count_and_find_one() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    for i in 0..5 {
        let mut u = user();
        u.email = format!("u{i}@x.y");
        u.status = if i % 2 == 0 { "A" } else { "B" }.into();
        users.create(u).await.unwrap();
    }
    assert_eq!(users.count(doc! {}).await.unwrap(), 5);
    assert_eq!(users.count(doc! { "status": "A" }).await.unwrap(), 3);
    let found = users.find(doc! { "status": "B" }).await.unwrap();
    assert_eq!(found.len(), 2);
    assert!(found
        .iter()
        .all(|d| d.status == "B" && d.version() == Some(0)));
    let one = users
        .find_one(doc! { "email": "u3@x.y" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(one.status, "B");
    assert!(users
        .find_one(doc! { "email": "none" })
        .await
        .unwrap()
        .is_none());
    assert!(users.find_by_id(ObjectId::new()).await.unwrap().is_none());
    t.finish().await;
}

#[tokio::test]
async fn wrong_field_type_names_the_id_and_field() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let id = ObjectId::new();
    users
        .collection()
        .insert_one(doc! { "_id": id, "email": "a@b.c", "status": 42, "avatar": null, "__v": 0 })
        .await
        .unwrap();
    let err = users.find_by_id(id).await.unwrap_err();
    match &err {
        Error::Deserialize(e) => {
            assert_eq!(e.path, "status");
            assert_eq!(e.collection, "users");
            assert_eq!(e.id, odm::bson::Bson::ObjectId(id));
        }
        other => panic!("expected Deserialize, got {other:?}"),
    }
    let text = err.to_string();
    assert!(text.contains(&id.to_hex()), "{text}");
    assert!(text.contains("field \"status\""), "{text}");
    t.finish().await;
}

#[tokio::test]
async fn missing_field_and_nested_path_are_named() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let mut raw = common::bson::to_document(&post()).unwrap();
    raw.remove("title");
    let id = raw.get_object_id("_id").unwrap();
    posts.collection().insert_one(raw).await.unwrap();
    match posts.find_by_id(id).await {
        Err(Error::Deserialize(e)) => assert_eq!(e.path, "title", "{e}"),
        other => panic!("expected Deserialize, got {other:?}"),
    }
    let mut raw = common::bson::to_document(&post()).unwrap();
    let id2 = raw.get_object_id("_id").unwrap();
    let comments = raw.get_array_mut("comments").unwrap();
    comments[1].as_document_mut().unwrap().insert("text", 5);
    posts.collection().insert_one(raw).await.unwrap();
    match posts.find_by_id(id2).await {
        Err(Error::Deserialize(e)) => {
            assert_eq!(e.path, "comments.1.text", "{e}");
            assert_eq!(e.id, odm::bson::Bson::ObjectId(id2));
        }
        other => panic!("expected Deserialize, got {other:?}"),
    }
    // find() fails as a whole and says which document.
    match posts.find(doc! {}).await {
        Err(Error::Deserialize(e)) => {
            assert!(e.id == odm::bson::Bson::ObjectId(id) || e.id == odm::bson::Bson::ObjectId(id2))
        }
        other => panic!("expected Deserialize, got {other:?}"),
    }
    t.finish().await;
}

#[tokio::test]
async fn reload_takes_the_stored_state() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let u = user();
    users.create(u.clone()).await.unwrap();
    let (mut a, mut b) = two_copies(&users, u.id).await;
    a.status = "ACTIVE".into();
    a.tags.push("x".into());
    a.save().await.unwrap();
    b.status = "local".into();
    b.reload().await.unwrap();
    assert_eq!(b.status, "ACTIVE");
    assert_eq!(b.tags, ["x"]);
    assert_eq!(b.version(), Some(1));
    assert_eq!(b.changes(), None);
    users
        .collection()
        .delete_one(doc! { "_id": u.id })
        .await
        .unwrap();
    assert!(matches!(b.reload().await, Err(Error::NotFound(_))));
    t.finish().await;
}

/// Counts how often the document is serialized.
static SERIALIZED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
struct Counted(String);

impl serde::Serialize for Counted {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SERIALIZED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.0.serialize(s)
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, Document)]
#[odm(collection = "counted")]
struct Note {
    #[serde(rename = "_id")]
    id: i64,
    text: Counted,
}

#[tokio::test]
async fn a_document_only_read_is_never_serialized_and_the_first_change_is_tracked() {
    use std::sync::atomic::Ordering::SeqCst;
    let t = TestDb::new().await;
    let notes = Note::model(&t.db);
    notes
        .collection()
        .insert_one(doc! { "_id": 1_i64, "text": "a", "__v": 0 })
        .await
        .unwrap();
    let before = SERIALIZED.load(SeqCst);
    let mut note = notes.find_by_id(1_i64).await.unwrap().unwrap();
    assert_eq!(note.text.0, "a");
    assert_eq!(
        SERIALIZED.load(SeqCst),
        before,
        "loading and reading serialize nothing"
    );
    // The snapshot is taken at the first mutable access, before the change.
    note.text.0 = "b".into();
    assert_eq!(SERIALIZED.load(SeqCst), before + 1);
    assert_eq!(
        note.changes(),
        Some((doc! { "_id": 1_i64 }, doc! { "$set": { "text": "b" } }))
    );
    note.save().await.unwrap();
    assert_eq!(stored(&notes, 1_i64).await.get_str("text").unwrap(), "b");
    // A mutable access that changes nothing is no change.
    let mut again = notes.find_by_id(1_i64).await.unwrap().unwrap();
    let _ = &mut again.text;
    assert_eq!(again.changes(), None);
    t.finish().await;
}
