//! A save of a `timestamps` model costs what the same save without them
//! costs, plus the stamp: it stays a patch of the snapshot (the fields it
//! did not change are not serialized), `updatedAt` is one more field of
//! the patch, and the commit keeps the patched snapshot instead of
//! serializing the value again. Seen through a field written by
//! `serialize_with`, which counts its calls on this thread; after every
//! save the stored document is the value in memory.

use crate::common;

use common::counted::{self, assert_stored_is, written};
use common::*;
use odm::bson::oid::ObjectId;
use odm::bson::{Bson, DateTime};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "stamped_ledgers", timestamps)]
#[serde(rename_all = "camelCase")]
struct Ledger {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    counter: i32,
    #[serde(serialize_with = "counted::counted")]
    entries: Vec<i64>,
    created_at: DateTime,
    updated_at: Option<DateTime>,
}

fn ledger() -> Ledger {
    Ledger {
        id: ObjectId::new(),
        name: "a".into(),
        counter: 0,
        entries: (0..50).collect(),
        created_at: DateTime::from_millis(0),
        updated_at: None,
    }
}

/// `updatedAt` as `doc` holds it.
fn updated(doc: &Doc<Ledger>) -> DateTime {
    doc.updated_at.expect("stamped")
}

#[tokio::test]
async fn a_stamped_save_is_a_patch_and_the_commit_serializes_nothing_again() {
    let t = TestDb::new().await;
    let ledgers = Ledger::model(&t.db);
    let id = ledgers.create(ledger()).await.unwrap().id;
    let mut doc = ledgers.find_by_id(id).await.unwrap().unwrap();
    let created = doc.created_at;
    let f = Ledger::fields();
    // The first change of a loaded value takes its snapshot.
    *doc.field_mut(f.name()) = "b".into();
    doc.save().await.unwrap();
    assert_stored_is(&ledgers, &doc).await;
    let mut last = updated(&doc);
    for n in 1..=3 {
        *doc.field_mut(f.counter()) = n;
        let patched = odm::__private::patched_plans();
        let (filter, update) = doc.changes().expect("a change");
        assert!(odm::__private::patched_plans() > patched, "a patch");
        assert_eq!(filter, doc! { "_id": id });
        let stamp = update.get_document("$set").unwrap().get("updatedAt");
        assert!(matches!(stamp, Some(Bson::DateTime(_))), "{update}");
        assert_eq!(
            update
                .get_document("$set")
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["counter", "updatedAt"]
        );
        written();
        doc.save().await.unwrap();
        // Neither the plan nor the commit serialized the entries.
        assert_eq!(written(), 0, "save {n}: the entries were serialized");
        assert!(updated(&doc) >= last);
        last = updated(&doc);
        assert_eq!(doc.created_at, created, "createdAt is written once");
        assert_stored_is(&ledgers, &doc).await;
    }
    // A hand-set `updatedAt` is replaced by the stamp.
    *doc.field_mut(f.updated_at()) = Some(DateTime::from_millis(5));
    *doc.field_mut(f.counter()) = 9;
    doc.save().await.unwrap();
    assert!(updated(&doc) >= last);
    assert_stored_is(&ledgers, &doc).await;
    // `DerefMut`: once the copy is taken, unchanged fields are passed
    // over too, the stamped one followed by the copy.
    for name in ["c", "d", "e"] {
        doc.name = name.into();
        doc.save().await.unwrap();
        assert_stored_is(&ledgers, &doc).await;
    }
    written();
    doc.counter = 10;
    doc.save().await.unwrap();
    assert_eq!(written(), 0, "the entries did not change");
    assert_stored_is(&ledgers, &doc).await;
    // A changed array is written, and only it.
    doc.entries.push(50);
    doc.save().await.unwrap();
    assert_eq!(written(), 1);
    assert_stored_is(&ledgers, &doc).await;
    // A save that changes nothing stamps nothing.
    let before = updated(&doc);
    doc.save().await.unwrap();
    assert_eq!(updated(&doc), before);
    assert_eq!(
        stored(&ledgers, id)
            .await
            .get_datetime("updatedAt")
            .unwrap(),
        &before
    );
    t.finish().await;
}

#[tokio::test]
async fn a_stored_document_without_the_stamp_gets_it_on_its_next_save() {
    // Written by another tool: no `updatedAt` at all, then one holding null.
    let t = TestDb::new().await;
    let ledgers = Ledger::model(&t.db);
    let raw = t.db.collection::<odm::bson::Document>("stamped_ledgers");
    let id = ObjectId::new();
    let entries: Vec<i64> = (0..5).collect();
    raw.insert_one(
        doc! { "_id": id, "name": "x", "counter": 0, "entries": entries.clone(),
        "createdAt": DateTime::from_millis(1) },
    )
    .await
    .unwrap();
    let mut doc = ledgers.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(doc.updated_at, None);
    let f = Ledger::fields();
    for n in 1..=3 {
        *doc.field_mut(f.counter()) = n;
        doc.save().await.unwrap();
        assert!(doc.updated_at.is_some());
        assert_stored_is(&ledgers, &doc).await;
    }
    let other = ObjectId::new();
    raw.insert_one(
        doc! { "_id": other, "name": "y", "counter": 0, "entries": entries,
        "createdAt": DateTime::from_millis(1), "updatedAt": null },
    )
    .await
    .unwrap();
    let mut doc = ledgers.find_by_id(other).await.unwrap().unwrap();
    for n in 1..=3 {
        *doc.field_mut(f.counter()) = n;
        doc.save().await.unwrap();
        assert!(doc.updated_at.is_some());
        assert_stored_is(&ledgers, &doc).await;
    }
    t.finish().await;
}

/// Stamps serde skips while unset: a new document stores them appended
/// after the other fields, where an update's `$set` puts them too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "stamped_notes", optimistic_concurrency, timestamps)]
#[serde(rename_all = "camelCase")]
struct Note {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(skip_serializing_if = "Option::is_none")]
    created_at: Option<DateTime>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_at: Option<DateTime>,
    text: String,
    #[serde(serialize_with = "counted::counted")]
    lines: Vec<String>,
}

#[tokio::test]
async fn stamps_serde_skips_while_unset_are_added_and_then_patched() {
    let t = TestDb::new().await;
    let notes = Note::model(&t.db);
    let note = Note {
        id: ObjectId::new(),
        created_at: None,
        updated_at: None,
        text: "a".into(),
        lines: vec!["x".into(); 20],
    };
    let mut doc = notes.create(note).await.unwrap();
    assert!(doc.created_at.is_some() && doc.updated_at.is_some());
    assert_stored_is(&notes, &doc).await;
    let f = Note::fields();
    for n in 0..4 {
        *doc.field_mut(f.text()) = format!("t{n}");
        doc.save().await.unwrap();
        assert_stored_is(&notes, &doc).await;
    }
    // Once the snapshot holds the fields where the value writes them, a
    // save serializes only what it reached.
    *doc.field_mut(f.text()) = "last".into();
    doc.save().await.unwrap();
    assert_eq!(written(), 0, "the lines were serialized");
    assert_stored_is(&notes, &doc).await;
    // A stored document without the stamps gets them on its next save.
    let mut other = notes.find_by_id(doc.id).await.unwrap().unwrap();
    let raw = t.db.collection::<odm::bson::Document>("stamped_notes");
    raw.update_one(
        doc! { "_id": doc.id },
        doc! { "$unset": { "createdAt": "", "updatedAt": "" } },
    )
    .await
    .unwrap();
    let mut fresh = notes.find_by_id(doc.id).await.unwrap().unwrap();
    assert_eq!(fresh.updated_at, None);
    for n in 0..3 {
        fresh.text = format!("f{n}");
        fresh.save().await.unwrap();
        assert!(fresh.updated_at.is_some() && fresh.created_at.is_none());
        assert_stored_is(&notes, &fresh).await;
    }
    // The copy loaded before is stale: refused, and left as it was.
    other.text = "stale".into();
    assert!(matches!(other.save().await, Err(Error::Version(_))));
    t.finish().await;
}
