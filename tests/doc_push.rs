//! `Doc::push`: an append the `Doc` sees as one. While the field was
//! reached no other way since the snapshot, a save writes the new
//! elements only (the stored ones are neither serialized nor compared) and
//! sends their `$push`; otherwise it compares the field as after
//! `DerefMut`. Either way it sends what a save after `DerefMut` sends.
//! Seen through fields written by `serialize_with`, which count their
//! calls on this thread.

use crate::common;

use common::counted::{self, assert_stored_is, written};
use common::*;
use odm::bson::oid::ObjectId;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
struct Entry {
    text: String,
    #[serde(serialize_with = "counted::counted")]
    n: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "doc_push_logs", optimistic_concurrency)]
struct Log {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(serialize_with = "counted::counted")]
    title: String,
    entries: Vec<Entry>,
    /// Written through `serialize_with`: an append is not known as one.
    #[serde(serialize_with = "counted::counted")]
    marks: Vec<i64>,
    /// Absent while empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

fn entry(n: i64) -> Entry {
    Entry {
        text: format!("entry {n}"),
        n,
    }
}

fn log() -> Log {
    Log {
        id: ObjectId::new(),
        title: "log".into(),
        entries: (0..10).map(entry).collect(),
        marks: vec![1, 2],
        notes: Vec::new(),
    }
}

#[tokio::test]
async fn a_push_writes_the_new_elements_only_and_sends_their_push() {
    let t = TestDb::new().await;
    let logs = Log::model(&t.db);
    let id = logs.create(log()).await.unwrap().id;
    let (mut doc, mut by_hand) = two_copies(&logs, id).await;
    let f = Log::fields();
    doc.push(f.entries(), entry(10));
    doc.push(f.entries(), entry(11));
    written();
    let patched = odm::__private::patched_plans();
    let (filter, update) = doc.changes().expect("a change");
    // The two new entries; not the ten stored ones, nor the title.
    assert_eq!(written(), 2);
    assert!(odm::__private::patched_plans() > patched);
    assert_eq!(filter, doc! { "_id": id, "__v": 0 });
    let pushed = doc! {
        "$push": { "entries": { "$each": [
            { "text": "entry 10", "n": 10_i64 },
            { "text": "entry 11", "n": 11_i64 },
        ] } },
        "$inc": { "__v": 1 },
    };
    assert_eq!(update, pushed);
    // The same change through `DerefMut` sends the same.
    by_hand.entries.extend([entry(10), entry(11)]);
    assert_eq!(by_hand.changes(), Some((filter, update)));

    doc.save().await.unwrap();
    assert_stored_is(&logs, &doc).await;
    // Saved again: a push counts from the new snapshot.
    doc.push(f.entries(), entry(12));
    let (_, update) = doc.changes().expect("a change");
    assert_eq!(
        update,
        doc! {
            "$push": { "entries": { "$each": [{ "text": "entry 12", "n": 12_i64 }] } },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored_is(&logs, &doc).await;
    assert_eq!(doc.entries.len(), 13);

    // Several at once; none is nothing to save.
    doc.extend(f.entries(), [entry(13), entry(14)]);
    doc.extend(f.entries(), []);
    written();
    let (_, update) = doc.changes().expect("a change");
    assert_eq!(written(), 2);
    assert_eq!(
        update,
        doc! {
            "$push": { "entries": { "$each": [
                { "text": "entry 13", "n": 13_i64 },
                { "text": "entry 14", "n": 14_i64 },
            ] } },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored_is(&logs, &doc).await;
    doc.extend(f.entries(), []);
    assert_eq!(doc.changes(), None);
}

#[tokio::test]
async fn a_push_beside_other_changes_of_the_field_is_compared() {
    let t = TestDb::new().await;
    let logs = Log::model(&t.db);
    let id = logs.create(log()).await.unwrap().id;
    let f = Log::fields();

    // Pushed, then an element changed through `field_mut`.
    let (mut doc, mut by_hand) = two_copies(&logs, id).await;
    doc.push(f.entries(), entry(10));
    doc.field_mut(f.entries())[0].text = "first".into();
    by_hand.entries.push(entry(10));
    by_hand.entries[0].text = "first".into();
    written();
    let changes = doc.changes().expect("a change");
    // Every entry is looked at: the field counts as reached.
    assert_eq!(written(), 11);
    assert_eq!(by_hand.changes(), Some(changes));
    doc.save().await.unwrap();
    assert_stored_is(&logs, &doc).await;

    // Pushed after `DerefMut`: the whole value is looked at.
    doc.title = "again".into();
    doc.push(f.entries(), entry(11));
    let (_, update) = doc.changes().expect("a change");
    assert_eq!(
        update,
        doc! {
            "$set": { "title": "again" },
            "$push": { "entries": { "$each": [{ "text": "entry 11", "n": 11_i64 }] } },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored_is(&logs, &doc).await;
}

#[tokio::test]
async fn a_field_written_by_serialize_with_or_absent_is_written_whole() {
    let t = TestDb::new().await;
    let logs = Log::model(&t.db);
    let id = logs.create(log()).await.unwrap().id;
    let f = Log::fields();
    let (mut doc, mut by_hand) = two_copies(&logs, id).await;
    // `marks` is serialized by its own function: it is compared.
    doc.push(f.marks(), 3);
    // `notes` was empty, so not stored: it is written whole.
    doc.push(f.notes(), "hello".into());
    by_hand.marks.push(3);
    by_hand.notes.push("hello".into());
    written();
    let changes = doc.changes().expect("a change");
    // Neither the title nor the entries: `marks` alone, twice (in a patch
    // given up when `notes` came into the document, then whole).
    assert_eq!(written(), 2, "marks");
    assert_eq!(by_hand.changes(), Some(changes));
    doc.save().await.unwrap();
    assert_stored_is(&logs, &doc).await;
    let stored = stored(&logs, id).await;
    assert_eq!(stored.get_array("marks").unwrap().len(), 3);
    assert_eq!(stored.get_array("notes").unwrap().len(), 1);
}

#[tokio::test]
async fn a_refused_push_keeps_its_change() {
    let t = TestDb::new().await;
    let logs = Log::model(&t.db);
    let id = logs.create(log()).await.unwrap().id;
    let f = Log::fields();
    let (mut doc, mut stale) = two_copies(&logs, id).await;
    *doc.field_mut(f.title()) = "new".into();
    doc.save().await.unwrap();
    stale.push(f.entries(), entry(10));
    let e = stale.save().await.unwrap_err();
    assert!(matches!(e, odm::Error::Version(_)), "{e}");
    let (_, update) = stale.changes().expect("the change is kept");
    assert_eq!(
        update,
        doc! {
            "$push": { "entries": { "$each": [{ "text": "entry 10", "n": 10_i64 }] } },
            "$inc": { "__v": 1 },
        }
    );
    stale.reload().await.unwrap();
    stale.push(f.entries(), entry(10));
    stale.save().await.unwrap();
    assert_stored_is(&logs, &stale).await;
    assert_eq!(stale.title, "new");
    assert_eq!(stale.entries.len(), 11);
}
