//! Ids assigned on insert: a new document whose `_id` is missing or null
//! gets an `ObjectId` odm generates and writes into the value before the
//! insert, so the `Doc` knows its id, later saves update that document,
//! and a retried insert cannot store a second copy.

use crate::common;

use common::{stored, Monitored};
use odm::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "notes")]
struct Note {
    #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
    id: Option<ObjectId>,
    #[odm(unique)]
    title: String,
    #[odm(min_len = 1)]
    body: String,
    tags: Vec<String>,
}

fn note(title: &str) -> Note {
    Note {
        id: None,
        title: title.into(),
        body: "text".into(),
        tags: vec![],
    }
}

/// Serializes `_id: null` when there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "null_ids")]
struct NullId {
    #[serde(rename = "_id")]
    id: Option<ObjectId>,
    n: i32,
}

/// An id field that cannot hold an `ObjectId`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "labels")]
struct Label {
    #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    n: i32,
}

/// An id field that holds an `ObjectId` but serializes it as hex text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "hexed")]
struct Hexed {
    #[serde(
        rename = "_id",
        skip_serializing_if = "Option::is_none",
        serialize_with = "as_hex"
    )]
    id: Option<ObjectId>,
    n: i32,
}

fn as_hex<S: serde::Serializer>(id: &Option<ObjectId>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&id.expect("skipped when None").to_hex())
}

/// The value as stored: itself and the version.
fn with_version<T: Serialize>(value: &T, version: i32) -> BsonDocument {
    let mut expected = common::bson::to_document(value).unwrap();
    expected.insert("__v", version);
    expected
}

/// Checks a freshly inserted note, then changes and saves it: the update
/// targets the generated id and stored == in memory after each save.
async fn check_inserted_then_updated(notes: &Model<Note>, doc: &mut Doc<Note>) {
    let oid = doc.id.expect("the value holds the generated id");
    assert_eq!(doc.id().unwrap(), Bson::ObjectId(oid));
    assert!(!doc.is_new());
    assert_eq!(stored(notes, oid).await, with_version(&**doc, 0));
    doc.body = "changed".into();
    doc.tags.push("t".into());
    let (filter, _) = doc.changes().expect("an update");
    assert_eq!(filter, doc! { "_id": oid });
    doc.save().await.unwrap();
    assert_eq!(stored(notes, oid).await, with_version(&**doc, 1));
    assert_eq!(doc.version(), Some(1));
    assert_eq!(notes.count(doc! {}).await.unwrap(), 1);
    let loaded = notes.find_by_id(oid).await.unwrap().unwrap();
    assert_eq!(*loaded, **doc);
}

#[tokio::test]
async fn new_doc_and_save_records_the_generated_id() {
    let t = TestDb::new().await;
    let notes = Note::model(&t.db);
    let mut doc = notes.new_doc(note("a"));
    assert_eq!(doc.id().unwrap(), Bson::Null);
    doc.save().await.unwrap();
    check_inserted_then_updated(&notes, &mut doc).await;
    t.finish().await;
}

#[tokio::test]
async fn create_records_the_generated_id() {
    let t = TestDb::new().await;
    let notes = Note::model(&t.db);
    let mut doc = notes.create(note("a")).await.unwrap();
    check_inserted_then_updated(&notes, &mut doc).await;
    t.finish().await;
}

#[tokio::test]
async fn a_null_id_is_generated_too_and_a_given_id_is_kept() {
    let t = TestDb::new().await;
    let items = NullId::model(&t.db);
    let mut doc = items.create(NullId { id: None, n: 1 }).await.unwrap();
    let oid = doc.id.expect("generated");
    doc.n = 2;
    doc.save().await.unwrap();
    assert_eq!(stored(&items, oid).await, with_version(&*doc, 0));
    let given = ObjectId::new();
    let doc = items
        .create(NullId {
            id: Some(given),
            n: 3,
        })
        .await
        .unwrap();
    assert_eq!(doc.id, Some(given));
    assert_eq!(items.count(doc! {}).await.unwrap(), 2);
    t.finish().await;
}

#[tokio::test]
async fn a_failed_insert_keeps_the_id_and_a_retry_reuses_it() {
    let m = Monitored::new("failed_insert").await;
    let notes = Note::model(m.db());
    notes.sync_indexes().await.unwrap();
    m.monitor.clear();
    // A validator fails: nothing is sent, the id is already in the value.
    let mut doc = notes.new_doc(Note {
        body: String::new(),
        ..note("a")
    });
    let err = doc.save().await.unwrap_err();
    assert!(
        matches!(&err, Error::Validation(e) if e.paths() == ["body"]),
        "{err}"
    );
    let oid = doc.id.expect("assigned before validation");
    assert!(doc.is_new());
    assert!(m.monitor.writes().is_empty(), "{:?}", m.monitor.writes());
    assert_eq!(notes.count(doc! {}).await.unwrap(), 0);
    doc.body = "fixed".into();
    doc.save().await.unwrap();
    assert_eq!(doc.id, Some(oid), "the same id");
    assert_eq!(stored(&notes, oid).await, with_version(&*doc, 0));

    // A unique index refuses the insert: still new, same id on the retry.
    let mut other = notes.new_doc(note("a"));
    match other.save().await {
        Err(Error::DuplicateKey(e)) => assert_eq!(e.index.as_deref(), Some("title_1")),
        other => panic!("expected DuplicateKey, got {other:?}"),
    }
    assert!(other.is_new());
    let other_id = other.id.expect("assigned");
    other.title = "b".into();
    other.save().await.unwrap();
    assert_eq!(other.id, Some(other_id));
    assert_eq!(stored(&notes, other_id).await, with_version(&*other, 0));
    assert_eq!(notes.count(doc! {}).await.unwrap(), 2);
    m.finish().await;
}

/// An insert whose outcome was unknown (it landed, the answer was lost):
/// the retry sends the same id and fails instead of storing a second copy.
#[tokio::test]
async fn a_retry_after_an_insert_that_landed_stores_no_second_copy() {
    let t = TestDb::new().await;
    let notes = Note::model(&t.db);
    let mut doc = notes.new_doc(Note {
        body: String::new(),
        ..note("a")
    });
    assert!(doc.save().await.is_err());
    let oid = doc.id.expect("assigned");
    doc.body = "text".into();
    // What the first attempt would have stored.
    let mut landed = with_version(&*doc, 0);
    landed.insert("_id", oid);
    notes.collection().insert_one(landed).await.unwrap();
    match doc.save().await {
        Err(Error::DuplicateKey(e)) => assert_eq!(e.index.as_deref(), Some("_id_")),
        other => panic!("expected DuplicateKey, got {other:?}"),
    }
    assert_eq!(notes.count(doc! {}).await.unwrap(), 1);
    t.finish().await;
}

#[tokio::test]
async fn an_id_field_that_cannot_hold_an_object_id_is_refused_before_sending() {
    let m = Monitored::new("label_id").await;
    let labels = Label::model(m.db());
    let mut doc = labels.new_doc(Label { key: None, n: 1 });
    let err = doc.save().await.unwrap_err();
    let Error::Validation(e) = &err else {
        panic!("expected Validation, got {err:?}");
    };
    assert_eq!(e.paths(), ["_id"]);
    assert_eq!(
        err.to_string(),
        "validation failed: _id: is missing or null, and odm cannot generate one for `Label`: \
         its field cannot hold the ObjectId odm generates: invalid type: map, expected a string; \
         set `key` before saving"
    );
    assert_eq!(doc.key, None);
    assert!(doc.is_new());
    assert!(m.monitor.writes().is_empty(), "{:?}", m.monitor.writes());
    assert_eq!(labels.count(doc! {}).await.unwrap(), 0);
    // With an id of its own it saves.
    doc.key = Some("k".into());
    doc.save().await.unwrap();
    assert_eq!(
        stored(&labels, "k").await,
        doc! { "_id": "k", "n": 1, "__v": 0 }
    );
    assert_eq!(m.monitor.writes(), ["insert"]);
    m.finish().await;
}

#[tokio::test]
async fn an_id_that_does_not_serialize_as_written_is_refused_and_undone() {
    let t = TestDb::new().await;
    let hexed = Hexed::model(&t.db);
    let mut doc = hexed.new_doc(Hexed { id: None, n: 1 });
    let err = doc.save().await.unwrap_err();
    let Error::Validation(e) = &err else {
        panic!("expected Validation, got {err:?}");
    };
    assert_eq!(e.paths(), ["_id"]);
    let text = err.to_string();
    assert!(
        text.contains("the value serializes `_id` as \"")
            && text.contains("set `id` before saving"),
        "{text}"
    );
    assert_eq!(doc.id, None, "the written id is taken back");
    assert_eq!(hexed.count(doc! {}).await.unwrap(), 0);
    t.finish().await;
}
