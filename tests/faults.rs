//! Saves under injected faults (`failCommand`, scoped to each test's own
//! client): a closed connection, a retryable error, a write concern error
//! (the write IS applied) and a non-retryable error; and a save whose
//! outcome is unknown because the caller stopped waiting.
//!
//! Each time: the stored document is the old one or the new one, never a
//! duplicate or a half-write; a `Doc` whose write did not land keeps its
//! pending changes and its version; a retried `save()` ends in exactly the
//! intended state, and a write that did land is never applied twice. The
//! command monitor proves every fault fired.

use crate::common;

use std::future::IntoFuture;
use std::time::Duration;

use common::{Fault, Monitored};
use mongodb::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

/// Default (array) versioning: a push bumps the version without checking it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "items")]
struct Item {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    tags: Vec<String>,
}

/// Every change checks and bumps the version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "oc_items", optimistic_concurrency)]
struct OcItem {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    tags: Vec<String>,
}

fn item() -> Item {
    Item {
        id: ObjectId::new(),
        name: "a".into(),
        tags: vec!["t".into()],
    }
}

fn oc_item() -> OcItem {
    OcItem {
        id: ObjectId::new(),
        name: "a".into(),
        tags: vec!["t".into()],
    }
}

/// The stored document, or `None`.
async fn raw<T: odm::Document>(model: &Model<T>, id: ObjectId) -> Option<BsonDocument> {
    model
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
}

/// `value` as stored at version `v`.
fn at_version<T: Serialize>(value: &T, v: i32) -> BsonDocument {
    let mut d = common::bson::to_document(value).unwrap();
    d.insert("__v", v);
    d
}

/// `filter` with the version term `{__v: v}` added.
fn with_version(mut filter: BsonDocument, v: i32) -> BsonDocument {
    filter.insert("__v", v);
    filter
}

/// A server that refuses fail points fails the fault tests, unless
/// `ODM_TEST_NO_FAIL_POINTS` opts out: only then do they skip (and say so).
#[test]
fn refused_fail_points_fail_unless_opted_out() {
    use common::faults::refusal_verdict;
    let why = "error 59 (CommandNotFound): no such command";
    for unset in [None, Some(""), Some("0")] {
        let failed = refusal_verdict("insert", why, unset.map(Into::into)).unwrap_err();
        assert!(failed.contains("ODM_TEST_NO_FAIL_POINTS=1"), "{failed}");
        assert!(failed.contains(why), "{failed}");
    }
    let skipped = refusal_verdict("insert", why, Some("1".into())).unwrap();
    assert!(skipped.starts_with("SKIPPED insert: "), "{skipped}");
}

#[tokio::test]
async fn insert_under_each_fault() {
    let Some(m) = Monitored::with_fail_points("insert").await else {
        return;
    };
    let items = Item::model(m.db());
    for fault in Fault::ALL {
        // A new Doc's first save.
        let value = item();
        let mut doc = items.new_doc(value.clone());
        m.failing("insert", fault, doc.save()).await;
        assert!(doc.is_new(), "{fault:?}: still new");
        assert_eq!((*doc).clone(), value, "{fault:?}: value untouched");
        assert_eq!(doc.version(), None);
        let stored = raw(&items, value.id).await;
        if fault.applies() {
            // Applied, then reported as failed: stored once.
            assert_eq!(stored, Some(at_version(&value, 0)), "{fault:?}");
            // The retry cannot insert a second copy: the _id index refuses it.
            match doc.save().await {
                Err(Error::DuplicateKey(e)) => assert_eq!(e.index.as_deref(), Some("_id_")),
                other => panic!("{fault:?}: expected a duplicate _id, got {other:?}"),
            }
        } else {
            assert_eq!(stored, None, "{fault:?}: nothing stored");
            doc.save().await.unwrap();
            assert!(!doc.is_new());
            assert_eq!(doc.version(), Some(0));
        }
        assert_eq!(raw(&items, value.id).await, Some(at_version(&value, 0)));
        assert_eq!(items.count(doc! { "_id": value.id }).await.unwrap(), 1);

        // Model::create.
        let value = item();
        m.failing("insert", fault, items.create(value.clone()))
            .await;
        let retried = items.create(value.clone()).await;
        if fault.applies() {
            assert!(
                matches!(&retried, Err(Error::DuplicateKey(e)) if e.index.as_deref() == Some("_id_")),
                "{fault:?}: {retried:?}"
            );
        } else {
            assert_eq!(retried.unwrap().version(), Some(0));
        }
        assert_eq!(raw(&items, value.id).await, Some(at_version(&value, 0)));
    }
    assert_eq!(items.count(doc! {}).await.unwrap(), 8, "no duplicates");
    m.finish().await;
}

/// A versioned save (`optimistic_concurrency`: `$set` + `$push` + `$inc` of
/// the version, filtered on the loaded version).
#[tokio::test]
async fn versioned_save_under_each_fault() {
    let Some(m) = Monitored::with_fail_points("versioned").await else {
        return;
    };
    let items = OcItem::model(m.db());
    for fault in Fault::ALL {
        let value = oc_item();
        let mut doc = items.create(value.clone()).await.unwrap();
        doc.name = "b".into();
        doc.tags.push("u".into());
        let pending = doc.changes().unwrap();
        assert_eq!(
            pending,
            (
                doc! { "_id": value.id, "__v": 0 },
                doc! {
                    "$set": { "name": "b" },
                    "$push": { "tags": { "$each": ["u"] } },
                    "$inc": { "__v": 1 },
                }
            )
        );
        let intended = at_version(&*doc, 1);
        m.failing("update", fault, doc.save()).await;
        // The Doc did not take the write: same changes, same version.
        assert_eq!(doc.changes(), Some(pending.clone()), "{fault:?}");
        assert_eq!(doc.version(), Some(0));
        let stored = raw(&items, value.id).await.unwrap();
        if fault.applies() {
            assert_eq!(stored, intended, "{fault:?}: applied once");
            // The retry cannot apply it again: the version moved on.
            match doc.save().await {
                Err(Error::Version(e)) => assert_eq!(
                    e.to_string(),
                    format!(
                        "No matching document found for id \"{}\" version 0 modifiedPaths \"name, tags\"",
                        value.id
                    )
                ),
                other => panic!("{fault:?}: expected a version error, got {other:?}"),
            }
            assert_eq!(doc.version(), Some(0));
            doc.reload().await.unwrap();
            assert_eq!(at_version(&*doc, 1), intended);
        } else {
            assert_eq!(stored, at_version(&value, 0), "{fault:?}: unchanged");
            doc.save().await.unwrap();
        }
        assert_eq!(doc.version(), Some(1), "{fault:?}");
        assert_eq!(doc.changes(), None);
        assert_eq!(raw(&items, value.id).await.unwrap(), intended, "{fault:?}");
    }
    m.finish().await;
}

/// A push in default mode bumps the version without checking it, so two
/// copies can both push. After a failure that may have applied the push
/// (a lost connection, a write concern error) the next save of that `Doc`
/// also checks the version: a push that landed is not pushed again.
#[tokio::test]
async fn array_push_under_each_fault() {
    let Some(m) = Monitored::with_fail_points("push").await else {
        return;
    };
    let items = Item::model(m.db());
    for fault in Fault::ALL {
        let value = item();
        let mut doc = items.create(value.clone()).await.unwrap();
        doc.tags.push("u".into());
        let (filter, update) = doc.changes().unwrap();
        assert_eq!(filter, doc! { "_id": value.id });
        assert_eq!(
            update,
            doc! { "$push": { "tags": { "$each": ["u"] } }, "$inc": { "__v": 1 } }
        );
        let intended = at_version(&*doc, 1);
        m.failing("update", fault, doc.save()).await;
        assert_eq!(doc.version(), Some(0));
        // The same update is pending; once the outcome is in doubt, it is
        // sent with the loaded version.
        let in_doubt = matches!(fault, Fault::Closed | Fault::WriteConcern);
        let filter = match in_doubt {
            true => with_version(filter, 0),
            false => filter,
        };
        assert_eq!(doc.changes(), Some((filter, update)), "{fault:?}");
        if fault.applies() {
            assert_eq!(raw(&items, value.id).await.unwrap(), intended);
            assert!(
                matches!(doc.save().await, Err(Error::Version(_))),
                "{fault:?}: a push that landed is not sent again"
            );
            doc.reload().await.unwrap();
        } else {
            assert_eq!(raw(&items, value.id).await.unwrap(), at_version(&value, 0));
            doc.save().await.unwrap();
        }
        assert_eq!(doc.version(), Some(1));
        assert_eq!(
            raw(&items, value.id).await.unwrap(),
            intended,
            "{fault:?}: pushed once, version bumped once"
        );
        // Once saved (or reloaded), pushes go back to not checking the version.
        doc.tags.push("w".into());
        assert_eq!(doc.changes().unwrap().0, doc! { "_id": value.id });
    }
    m.finish().await;
}

/// The caller stops waiting (a timeout) while the server, held up by a
/// `blockConnection` fail point, still applies the save: the outcome is
/// unknown to the caller. The `Doc` kept its changes and version, and its
/// retry fails with `Error::Version` instead of applying the change twice,
/// both for a versioned save and for a default-mode push.
#[tokio::test]
async fn a_save_whose_outcome_is_unknown_is_not_applied_twice() {
    let Some(m) = Monitored::with_fail_points("unknown").await else {
        return;
    };
    let items = Item::model(m.db());
    let oc = OcItem::model(m.db());
    let block = doc! { "blockConnection": true, "blockTimeMS": 600 };

    let value = oc_item();
    let mut versioned = oc.create(value.clone()).await.unwrap();
    versioned.tags.push("u".into());
    let pending = versioned.changes();
    let intended = at_version(&*versioned, 1);
    m.monitor.clear();
    let fp = m.fail_with(&["update"], 1, block.clone()).await;
    let gave_up = tokio::time::timeout(Duration::from_millis(100), versioned.save().into_future());
    assert!(gave_up.await.is_err(), "the caller stopped waiting");
    fp.off().await;
    assert_eq!(versioned.changes(), pending);
    assert_eq!(versioned.version(), Some(0));
    assert_eq!(eventually(&oc, value.id, &intended).await, intended);
    assert_eq!(m.monitor.started("update"), 1);
    assert!(matches!(
        versioned.save().await,
        Err(Error::Version(e)) if e.version == 0 && e.modified_paths == ["tags"]
    ));
    assert_eq!(raw(&oc, value.id).await.unwrap(), intended, "applied once");

    let value = item();
    let mut pushed = items.create(value.clone()).await.unwrap();
    pushed.tags.push("u".into());
    let (filter, update) = pushed.changes().unwrap();
    let intended = at_version(&*pushed, 1);
    let fp = m.fail_with(&["update"], 1, block).await;
    let gave_up = tokio::time::timeout(Duration::from_millis(100), pushed.save().into_future());
    assert!(gave_up.await.is_err(), "the caller stopped waiting");
    fp.off().await;
    // The push may have landed: the Doc now checks the version.
    assert_eq!(pushed.changes(), Some((with_version(filter, 0), update)));
    assert_eq!(pushed.version(), Some(0));
    assert_eq!(eventually(&items, value.id, &intended).await, intended);
    assert!(matches!(pushed.save().await, Err(Error::Version(_))));
    assert_eq!(
        raw(&items, value.id).await.unwrap(),
        intended,
        "pushed once, version bumped once"
    );
    pushed.reload().await.unwrap();
    assert_eq!(pushed.tags, ["t", "u"]);
    m.finish().await;
}

/// The stored document once it equals `expected` (the blocked write lands
/// after the fail point's block), or what is stored after 5 s.
async fn eventually<T: odm::Document>(
    model: &Model<T>,
    id: ObjectId,
    expected: &BsonDocument,
) -> BsonDocument {
    for _ in 0..100 {
        let stored = raw(model, id).await.unwrap();
        if &stored == expected {
            return stored;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    raw(model, id).await.unwrap()
}

/// With retryable writes (the driver's default, off in the test URI) a
/// closed connection or a retryable error is sent once more by the driver
/// itself: the save succeeds, and is applied once.
#[tokio::test]
async fn with_retryable_writes_the_driver_sends_once_more() {
    let Some(m) =
        Monitored::with_fail_points_and("retrywrites", |o| o.retry_writes = Some(true)).await
    else {
        return;
    };
    let items = Item::model(m.db());
    for fault in [Fault::Closed, Fault::Retryable] {
        let value = item();
        let mut doc = items.new_doc(value.clone());
        m.with_fault("insert", fault, doc.save()).await.unwrap();
        assert_eq!(m.monitor.started("insert"), 2, "{fault:?}");
        assert_eq!(raw(&items, value.id).await, Some(at_version(&value, 0)));

        doc.tags.push("u".into());
        m.with_fault("update", fault, doc.save()).await.unwrap();
        assert_eq!(m.monitor.started("update"), 2, "{fault:?}");
        assert_eq!(doc.version(), Some(1));
        let stored = raw(&items, value.id).await.unwrap();
        assert_eq!(
            stored.get_array("tags").unwrap(),
            &vec![Bson::from("t"), Bson::from("u")]
        );
        assert_eq!(stored.get_i32("__v").unwrap(), 1, "{fault:?}: bumped once");
    }
    m.finish().await;
}
