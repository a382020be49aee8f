//! `#[odm(timestamps)]` on saves and claims.

use mongodb::bson::DateTime;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "notes", timestamps)]
#[serde(rename_all = "camelCase")]
struct Note {
    #[serde(rename = "_id")]
    id: i64,
    text: String,
    created_at: Option<DateTime>,
    updated_at: Option<DateTime>,
}

/// Renamed BSON fields, plain `DateTime` fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "events",
    timestamps(created_at = "born", updated_at = "touched")
)]
struct Event {
    #[serde(rename = "_id")]
    id: i64,
    name: String,
    born: DateTime,
    touched: DateTime,
}

fn pause() -> impl std::future::Future<Output = ()> {
    tokio::time::sleep(std::time::Duration::from_millis(5))
}

#[tokio::test]
async fn insert_sets_both_update_sets_updated_only() {
    let t = TestDb::new().await;
    let notes = Note::model(&t.db);
    let before = DateTime::now();
    let mut n = notes
        .create(Note {
            id: 1,
            text: "a".into(),
            created_at: None,
            updated_at: None,
        })
        .await
        .unwrap();
    let created = n.created_at.expect("set on insert");
    assert!(before <= created);
    assert_eq!(n.updated_at, Some(created));
    assert_eq!(n.changes(), None, "the stamped value is the snapshot");
    let raw = notes
        .collection()
        .find_one(doc! { "_id": 1_i64 })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw.get_datetime("createdAt").unwrap(), &created);
    assert_eq!(raw.get_datetime("updatedAt").unwrap(), &created);

    // A save that writes nothing does not touch updatedAt.
    n.save().await.unwrap();
    assert_eq!(n.updated_at, Some(created));

    pause().await;
    n.text = "b".into();
    let (_, update) = n.changes().unwrap();
    let set = update.get_document("$set").unwrap();
    assert_eq!(set.get_str("text").unwrap(), "b");
    assert!(
        set.get_datetime("updatedAt").is_ok(),
        "changes() shows the stamp: {update}"
    );
    assert_eq!(n.modified_paths(), ["text", "updatedAt"]);
    n.save().await.unwrap();
    let updated = n.updated_at.unwrap();
    assert!(updated > created);
    assert_eq!(n.created_at, Some(created));
    assert_eq!(n.changes(), None);
    let raw = notes
        .collection()
        .find_one(doc! { "_id": 1_i64 })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw.get_datetime("createdAt").unwrap(), &created);
    assert_eq!(raw.get_datetime("updatedAt").unwrap(), &updated);
    assert_eq!(raw.get_str("text").unwrap(), "b");
    t.finish().await;
}

#[tokio::test]
async fn a_failed_save_leaves_the_value_unstamped() {
    let t = TestDb::new().await;
    let notes = Note::model(&t.db);
    let mut n = notes
        .create(Note {
            id: 1,
            text: "a".into(),
            created_at: None,
            updated_at: None,
        })
        .await
        .unwrap();
    let stamped = n.updated_at;
    notes
        .collection()
        .delete_one(doc! { "_id": 1_i64 })
        .await
        .unwrap();
    n.text = "b".into();
    assert!(matches!(n.save().await, Err(Error::NotFound(_))));
    assert_eq!(n.updated_at, stamped);
    assert_eq!(n.text, "b");
    t.finish().await;
}

#[tokio::test]
async fn renamed_plain_fields() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let zero = DateTime::from_millis(0);
    let mut e = events
        .create(Event {
            id: 1,
            name: "x".into(),
            born: zero,
            touched: zero,
        })
        .await
        .unwrap();
    assert_ne!(e.born, zero);
    assert_eq!(e.born, e.touched);
    pause().await;
    e.name = "y".into();
    e.save().await.unwrap();
    assert!(e.touched > e.born);
    let raw = events
        .collection()
        .find_one(doc! {})
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw.get_datetime("born").unwrap(), &e.born);
    assert_eq!(raw.get_datetime("touched").unwrap(), &e.touched);
    assert!(raw.get("createdAt").is_none());

    // A claim stamps the renamed field too.
    pause().await;
    let claimed = events
        .claim(doc! { "name": "y" }, doc! { "$set": { "name": "z" } })
        .await
        .unwrap()
        .unwrap();
    assert!(claimed.touched > e.touched);
    assert_eq!(claimed.born, e.born);
    t.finish().await;
}
