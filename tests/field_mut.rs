//! `Doc::field_mut`: a change reached field by field. While every change
//! since the snapshot went through it, a save skips the other fields
//! without looking at them (neither serialized nor compared), except those
//! whose type can change behind `&` (a `Mutex`, a type without `Same`).
//! What it sends and stores is what a save after `DerefMut` sends.
//! Seen through a field written by `serialize_with`, which counts its
//! calls on this thread, and `odm::__private::patched_plans`.

use std::sync::Mutex;

use crate::common;

use common::counted::{self, assert_stored_is, written};
use common::*;
use odm::bson::oid::ObjectId;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize, Serializer};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
struct Line {
    text: String,
    #[serde(serialize_with = "counted::counted")]
    n: i64,
}

#[derive(Debug, Serialize, Deserialize, Document)]
#[odm(collection = "field_mut_pages", optimistic_concurrency)]
struct Page {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    #[serde(serialize_with = "counted::counted")]
    views: i64,
    lines: Vec<Line>,
    /// Changes behind `&`: looked at on every save.
    #[serde(serialize_with = "counted_mutex")]
    hits: Mutex<i64>,
}

fn counted_mutex<S: Serializer>(n: &Mutex<i64>, s: S) -> Result<S::Ok, S::Error> {
    counted::counted(&*n.lock().unwrap(), s)
}

fn page() -> Page {
    Page {
        id: ObjectId::new(),
        title: "first".into(),
        views: 0,
        lines: (0..20)
            .map(|n| Line {
                text: format!("line {n}"),
                n,
            })
            .collect(),
        hits: Mutex::new(0),
    }
}

#[tokio::test]
async fn a_save_after_field_mut_looks_at_that_field_and_the_unsealed_ones_only() {
    let t = TestDb::new().await;
    let pages = Page::model(&t.db);
    let id = pages.create(page()).await.unwrap().id;
    let mut doc = pages.find_by_id(id).await.unwrap().unwrap();
    let f = Page::fields();
    // The first change of a loaded value takes its snapshot (everything
    // serialized once, as after `DerefMut`).
    *doc.field_mut(f.title()) = "second".into();
    written();
    let patched = odm::__private::patched_plans();
    let (filter, update) = doc.changes().expect("a change");
    // `hits` (a `Mutex`) is serialized; `views` and the lines are not.
    assert_eq!(written(), 1);
    assert!(odm::__private::patched_plans() > patched);
    assert_eq!(filter, doc! { "_id": id, "__v": 0 });
    assert_eq!(
        update,
        doc! { "$set": { "title": "second" }, "$inc": { "__v": 1 } }
    );
    doc.save().await.unwrap();
    assert_stored_is(&pages, &doc).await;

    // A vector reached and pushed to: the push is found as ever.
    doc.field_mut(f.lines()).push(Line {
        text: "new".into(),
        n: 20,
    });
    *doc.field_mut(f.views()) += 5;
    let (_, update) = doc.changes().expect("a change");
    assert_eq!(
        update,
        doc! {
            "$set": { "views": 5_i64 },
            "$push": { "lines": { "$each": [{ "text": "new", "n": 20_i64 }] } },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored_is(&pages, &doc).await;
    assert_eq!(doc.lines.len(), 21);
}

#[tokio::test]
async fn a_field_changed_behind_a_shared_reference_is_still_saved() {
    let t = TestDb::new().await;
    let pages = Page::model(&t.db);
    let id = pages.create(page()).await.unwrap().id;
    let mut doc = pages.find_by_id(id).await.unwrap().unwrap();
    let f = Page::fields();
    *doc.field_mut(f.title()) = "second".into();
    // Through `Deref`, not `&mut`: `hits` has no `Same`, so it is looked at.
    *doc.hits.lock().unwrap() = 7;
    doc.save().await.unwrap();
    assert_stored_is(&pages, &doc).await;
    assert_eq!(stored(&pages, id).await.get_i64("hits").unwrap(), 7);
}

#[tokio::test]
async fn deref_mut_after_field_mut_looks_at_every_field() {
    let t = TestDb::new().await;
    let pages = Page::model(&t.db);
    let id = pages.create(page()).await.unwrap().id;
    let mut doc = pages.find_by_id(id).await.unwrap().unwrap();
    let f = Page::fields();
    *doc.field_mut(f.title()) = "second".into();
    doc.lines[3].text = "changed".into();
    doc.views = 9;
    written();
    let (_, update) = doc.changes().expect("a change");
    assert_eq!(
        update,
        doc! {
            "$set": { "title": "second", "views": 9_i64, "lines.3.text": "changed" },
            "$inc": { "__v": 1 },
        }
    );
    // Every counted number: `views`, the 20 lines, `hits`.
    assert_eq!(written(), 22);
    doc.save().await.unwrap();
    assert_stored_is(&pages, &doc).await;

    // After the save, `field_mut` alone again: the others are skipped.
    *doc.field_mut(f.views()) = 10;
    doc.save().await.unwrap();
    assert_eq!(written(), 2, "views and hits");
    assert_stored_is(&pages, &doc).await;
}

#[tokio::test]
async fn a_refused_save_after_field_mut_keeps_its_change() {
    let t = TestDb::new().await;
    let pages = Page::model(&t.db);
    let id = pages.create(page()).await.unwrap().id;
    let mut doc = pages.find_by_id(id).await.unwrap().unwrap();
    let mut stale = pages.find_by_id(id).await.unwrap().unwrap();
    let f = Page::fields();
    *doc.field_mut(f.views()) = 1;
    doc.save().await.unwrap();
    *stale.field_mut(f.title()) = "stale".into();
    let e = stale.save().await.unwrap_err();
    assert!(matches!(e, odm::Error::Version(_)), "{e}");
    let (_, update) = stale.changes().expect("the change is kept");
    assert_eq!(
        update,
        doc! { "$set": { "title": "stale" }, "$inc": { "__v": 1 } }
    );
    stale.reload().await.unwrap();
    *stale.field_mut(f.title()) = "fresh".into();
    stale.save().await.unwrap();
    assert_stored_is(&pages, &stale).await;
    assert_eq!(stale.views, 1);
}
