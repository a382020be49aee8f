//! save-rules.md: `optimistic_concurrency` (whole, include, exclude),
//! `increment()`, documents stored without a version, custom and disabled
//! version keys, and the outcome rules (matched count, Version vs NotFound,
//! state kept after a failure).

use crate::common;

use common::*;
use odm::bson::Bson;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "articles", optimistic_concurrency(include(status)))]
struct Article {
    #[serde(rename = "_id")]
    id: ObjectId,
    status: String,
    views: i64,
    tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "pages", optimistic_concurrency(exclude(views, tags)))]
struct Page {
    #[serde(rename = "_id")]
    id: ObjectId,
    status: String,
    views: i64,
    tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "events", version_key = "rev")]
#[serde(rename_all = "camelCase")]
struct Event {
    #[serde(rename = "_id")]
    id: String,
    event_name: String,
    attendees: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "logs", versioning = false)]
struct Log {
    #[serde(rename = "_id")]
    id: i64,
    lines: Vec<String>,
}

#[tokio::test]
async fn optimistic_concurrency_checks_every_changing_save() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let u = user();
    users.create(u.clone()).await.unwrap();
    let (mut a, _) = two_copies(&users, u.id).await;
    a.status = "ACTIVE".into();
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": u.id, "__v": 0 },
            doc! { "$set": { "status": "ACTIVE" }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(1));
    // An array push is ALL too (not only INC).
    a.tags.push("x".into());
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": u.id, "__v": 1 },
            doc! { "$push": { "tags": { "$each": ["x"] } }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    assert_eq!(stored(&users, u.id).await.get_i32("__v").unwrap(), 2);
    t.finish().await;
}

#[tokio::test]
async fn optimistic_concurrency_unchanged_stale_copy_fails() {
    let m = Monitored::new("unchanged").await;
    let users = User::model(m.db());
    let u = user();
    users.create(u.clone()).await.unwrap();
    let (mut a, mut b) = two_copies(&users, u.id).await;
    // Unchanged and fresh: a read checks the version; nothing is written.
    assert_eq!(b.changes(), None);
    m.monitor.clear();
    b.save().await.unwrap();
    assert!(m.monitor.writes().is_empty(), "{:?}", m.monitor.writes());
    let read = m.monitor.named("find");
    assert_eq!(read.len(), 1);
    assert_eq!(
        read[0].command.get_document("filter").unwrap(),
        &doc! { "_id": u.id, "__v": 0 }
    );
    a.status = "ACTIVE".into();
    a.save().await.unwrap();
    let err = b.save().await.unwrap_err();
    match &err {
        Error::Version(e) => {
            assert_eq!(e.version, 0);
            assert!(e.modified_paths.is_empty());
        }
        other => panic!("expected Version, got {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        format!(
            "No matching document found for id \"{}\" version 0 modifiedPaths \"\"",
            u.id.to_hex()
        )
    );
    m.finish().await;
}

#[tokio::test]
async fn include_checks_only_the_listed_fields() {
    let t = TestDb::new().await;
    let articles = Article::model(&t.db);
    let id = ObjectId::new();
    articles
        .create(Article {
            id,
            status: "draft".into(),
            views: 0,
            tags: vec![],
        })
        .await
        .unwrap();
    let (mut a, mut b) = two_copies(&articles, id).await;
    // Outside the list: no version at all, not even array versioning.
    a.views = 5;
    a.tags.push("x".into());
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": id },
            doc! { "$set": { "views": 5_i64 }, "$push": { "tags": { "$each": ["x"] } } }
        ))
    );
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(0));
    // In the list: ALL.
    a.status = "published".into();
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": id, "__v": 0 },
            doc! { "$set": { "status": "published" }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    b.status = "archived".into();
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    let stored = stored(&articles, id).await;
    assert_eq!(stored.get_str("status").unwrap(), "published");
    assert_eq!(stored.get_i32("__v").unwrap(), 1);
    t.finish().await;
}

#[tokio::test]
async fn exclude_skips_the_listed_fields() {
    let t = TestDb::new().await;
    let pages = Page::model(&t.db);
    let id = ObjectId::new();
    pages
        .create(Page {
            id,
            status: "draft".into(),
            views: 0,
            tags: vec![],
        })
        .await
        .unwrap();
    let (mut a, mut b) = two_copies(&pages, id).await;
    a.views = 9;
    a.tags.push("t".into());
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": id },
            doc! { "$set": { "views": 9_i64 }, "$push": { "tags": { "$each": ["t"] } } }
        ))
    );
    a.save().await.unwrap();
    // b is stale, but only touches excluded fields: it lands.
    b.views = 10;
    b.save().await.unwrap();
    // A change outside the list is checked.
    b.status = "live".into();
    assert_eq!(
        b.changes(),
        Some((
            doc! { "_id": id, "__v": 0 },
            doc! { "$set": { "status": "live" }, "$inc": { "__v": 1 } }
        ))
    );
    b.save().await.unwrap();
    a.status = "gone".into();
    assert!(matches!(a.save().await, Err(Error::Version(_))));
    t.finish().await;
}

#[tokio::test]
async fn increment_forces_a_check_and_bump() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let p = post();
    posts.create(p.clone()).await.unwrap();
    let (mut a, mut b) = two_copies(&posts, p.id).await;
    a.increment();
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": p.id, "__v": 0 },
            doc! { "$inc": { "__v": 1 } }
        ))
    );
    assert!(a.modified_paths().is_empty(), "increment() adds no path");
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(1));
    assert_eq!(a.changes(), None, "the forced bump is spent");
    // A scalar change is normally unchecked; with increment() it is checked.
    b.title = "late".into();
    b.increment();
    match b.save().await {
        Err(Error::Version(e)) => assert_eq!(e.modified_paths, ["title"]),
        other => panic!("expected Version, got {other:?}"),
    }
    t.finish().await;
}

#[tokio::test]
async fn documents_stored_without_a_version() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let p = post();
    let mut raw = common::bson::to_document(&p).unwrap();
    raw.remove("numbers");
    raw.insert("numbers", vec![1, 2]);
    posts.collection().insert_one(raw).await.unwrap();
    let mut doc = posts.find_by_id(p.id).await.unwrap().unwrap();
    assert_eq!(doc.version(), None);
    // WHERE without a version: no version term in the filter (the
    // positional guard still requires the element as loaded).
    doc.numbers[0] = 10;
    assert_eq!(
        doc.changes(),
        Some((
            in_place(doc! { "_id": p.id }, vec![element_is("numbers", 0, 1)]),
            doc! { "$set": { "numbers.0": 10 } }
        ))
    );
    doc.save().await.unwrap();
    assert_eq!(doc.version(), None);
    // INC sets the stored version to 1.
    doc.numbers.push(3);
    doc.save().await.unwrap();
    assert_eq!(doc.version(), Some(1));
    assert_eq!(stored(&posts, p.id).await.get_i32("__v").unwrap(), 1);
    t.finish().await;
}

#[tokio::test]
async fn missing_default_field_is_not_a_change() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let id = ObjectId::new();
    users
        .collection()
        .insert_one(doc! { "_id": id, "email": "x@y.z", "status": "NEW", "avatar": null, "__v": 0 })
        .await
        .unwrap();
    let mut u = users.find_by_id(id).await.unwrap().unwrap();
    assert!(u.tags.is_empty());
    assert_eq!(u.changes(), None, "the defaulted `tags` is not a change");
    u.tags.push("a".into());
    assert_eq!(
        u.changes(),
        Some((
            doc! { "_id": id, "__v": 0 },
            doc! { "$push": { "tags": { "$each": ["a"] } }, "$inc": { "__v": 1 } }
        ))
    );
    u.save().await.unwrap();
    assert_eq!(
        stored(&users, id).await.get_array("tags").unwrap(),
        &vec![Bson::String("a".into())]
    );
    t.finish().await;
}

#[tokio::test]
async fn custom_version_key_and_renamed_fields() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    events
        .create(Event {
            id: "launch".into(),
            event_name: "Launch".into(),
            attendees: vec![],
        })
        .await
        .unwrap();
    let stored_doc = stored(&events, "launch").await;
    assert_eq!(stored_doc.get_i32("rev").unwrap(), 0);
    assert!(stored_doc.contains_key("eventName"));
    let (mut a, mut b) = two_copies_str(&events, "launch").await;
    a.attendees.push("ann".into());
    a.attendees.push("bob".into());
    a.save().await.unwrap();
    b.attendees = vec![];
    b.attendees.push("cy".into());
    // b's push is INC only: it lands on top of a's.
    b.save().await.unwrap();
    let stored_doc = stored(&events, "launch").await;
    assert_eq!(stored_doc.get_i32("rev").unwrap(), 2);
    assert_eq!(stored_doc.get_array("attendees").unwrap().len(), 3);
    // A stale write fails, naming the string id. (b's only element is
    // replaced: an assignment of the whole array.)
    b.attendees[0] = "dee".into();
    let err = b.save().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "No matching document found for id \"launch\" version 1 modifiedPaths \"attendees\""
    );
    t.finish().await;
}

async fn two_copies_str(events: &Model<Event>, id: &str) -> (Doc<Event>, Doc<Event>) {
    let a = events.find_by_id(id).await.unwrap().unwrap();
    let b = events.find_by_id(id).await.unwrap().unwrap();
    (a, b)
}

#[tokio::test]
async fn versioning_off_stores_no_version_and_uses_not_found() {
    let t = TestDb::new().await;
    let logs = Log::model(&t.db);
    let mut log = logs
        .create(Log {
            id: 7,
            lines: vec![],
        })
        .await
        .unwrap();
    assert_eq!(log.version(), None);
    assert!(!stored(&logs, 7_i64).await.contains_key("__v"));
    log.lines.push("a".into());
    log.increment();
    assert_eq!(
        log.changes(),
        Some((
            doc! { "_id": 7_i64 },
            doc! { "$push": { "lines": { "$each": ["a"] } } }
        ))
    );
    log.save().await.unwrap();
    logs.collection()
        .delete_one(doc! { "_id": 7_i64 })
        .await
        .unwrap();
    log.lines.push("b".into());
    match log.save().await {
        Err(Error::NotFound(e)) => assert_eq!(e.filter, doc! { "_id": 7_i64 }),
        other => panic!("expected NotFound, got {other:?}"),
    }
    t.finish().await;
}

#[tokio::test]
async fn success_is_judged_on_matched_not_modified() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let p = post();
    posts.create(p.clone()).await.unwrap();
    let mut a = posts.find_by_id(p.id).await.unwrap().unwrap();
    // Another writer already stored the same title: our update matches the
    // document but modifies nothing, and that is a success.
    let other = posts
        .collection()
        .update_one(doc! { "_id": p.id }, doc! { "$set": { "title": "same" } })
        .await
        .unwrap();
    assert_eq!(other.modified_count, 1);
    a.title = "same".into();
    let (filter, update) = a.changes().unwrap();
    let raw = posts.collection().update_one(filter, update).await.unwrap();
    assert_eq!((raw.matched_count, raw.modified_count), (1, 0));
    a.save().await.unwrap();
    assert_eq!(a.changes(), None);
    assert_eq!(a.version(), Some(0));
    t.finish().await;
}

#[tokio::test]
async fn failed_save_keeps_changes_and_version() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let u = user();
    users.create(u.clone()).await.unwrap();
    let (mut a, mut b) = two_copies(&users, u.id).await;
    a.status = "A".into();
    a.save().await.unwrap();
    b.avatar = Some("https://x/y.png".into());
    b.tags.push("t".into());
    let pending = b.changes();
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_eq!(b.changes(), pending, "the changes stay pending");
    assert_eq!(b.version(), Some(0));
    assert_eq!(b.avatar.as_deref(), Some("https://x/y.png"));
    // Saving again fails the same way; reloading drops the changes.
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    b.reload().await.unwrap();
    assert_eq!(b.version(), Some(1));
    assert_eq!(b.status, "A");
    assert_eq!(b.avatar, None);
    b.avatar = Some("https://x/y.png".into());
    b.save().await.unwrap();
    assert_eq!(b.version(), Some(2));
    t.finish().await;
}

#[tokio::test]
async fn delete_then_save_is_not_found() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let mut u = users.create(user()).await.unwrap();
    let id = u.id;
    u.delete().await.unwrap();
    assert_eq!(users.count(doc! {}).await.unwrap(), 0);
    assert!(matches!(u.delete().await, Err(Error::NotFound(_))));
    u.status = "X".into();
    match u.save().await {
        Err(Error::NotFound(e)) => assert_eq!(e.filter, doc! { "_id": id }),
        other => panic!("expected NotFound, got {other:?}"),
    }
    assert_eq!(
        users.count(doc! {}).await.unwrap(),
        0,
        "a deleted Doc is not re-inserted"
    );
    t.finish().await;
}
