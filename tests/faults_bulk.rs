//! `bulk_save` under each fault of the fault matrix (`failCommand` on the
//! `bulkWrite` command, or on the `update` command for servers older than
//! MongoDB 8.0: each test runs both ways; scoped to the test's client): a
//! closed connection,
//! a retryable error, a write concern error (the writes ARE applied) and a
//! non-retryable error.
//!
//! Each time: no `Doc` is both committed and unstored; a `Doc` whose write
//! did not land (or whose outcome is unknown) keeps its changes and its
//! version; the retried `bulk_save` ends in exactly the intended state and
//! never applies a write twice.

use crate::both_paths;
use crate::common;

use std::collections::HashMap;

use common::faults::assert_reported;
use common::{Fault, Monitored};
use mongodb::bson::Document as BsonDocument;
use odm::__private::BulkPath;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", optimistic_concurrency)]
struct Account {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(unique)]
    email: String,
    #[odm(min = 0)]
    score: i32,
    tags: Vec<String>,
}

/// Default (array) versioning: a push bumps the version without checking it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "items")]
struct Item {
    #[serde(rename = "_id")]
    id: ObjectId,
    tags: Vec<String>,
}

fn account(n: usize) -> Account {
    Account {
        id: ObjectId::new(),
        email: format!("user{n}@example.com"),
        score: 0,
        tags: vec![],
    }
}

fn at_version<T: Serialize>(value: &T, v: i32) -> BsonDocument {
    let mut d = common::bson::to_document(value).unwrap();
    d.insert("__v", v);
    d
}

async fn all_stored<T: odm::Document>(model: &Model<T>) -> HashMap<ObjectId, BsonDocument> {
    use futures_util::TryStreamExt;
    let docs: Vec<BsonDocument> = model
        .collection()
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    docs.into_iter()
        .map(|d| (d.get_object_id("_id").unwrap(), d))
        .collect()
}

both_paths!(the_batch_under_each_fault, pushes_under_each_fault);

/// The `Doc`s of one `bulk_save`, in one command (the server takes up to
/// `maxWriteBatchSize`, 100,000, per command): the 1,000.
const DOCS: usize = 1000;

/// Which of the 1,000: 100 stale, 10 taking a held email, 10 invalid.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Good,
    Stale,
    Taken,
    Invalid,
}

fn kind(i: usize) -> Kind {
    match (i % 10, i % 100) {
        (0, _) => Kind::Stale,
        (_, 1) => Kind::Taken,
        (_, 2) => Kind::Invalid,
        _ => Kind::Good,
    }
}

/// The 1,000 `Doc`s, loaded and changed, 100 of them made stale.
async fn batch(accounts: &Model<Account>, path: BulkPath) -> Vec<Doc<Account>> {
    accounts.collection().delete_many(doc! {}).await.unwrap();
    let created = accounts
        .insert_many((0..DOCS).map(account))
        .path(path)
        .await
        .unwrap();
    let mut docs: Vec<Doc<Account>> = created.into_iter().map(Result::unwrap).collect();
    for n in 0..10 {
        accounts.create(account(5000 + n)).await.unwrap();
    }
    for (i, doc) in docs.iter_mut().enumerate() {
        doc.score = 1 + i as i32;
        doc.tags.push(format!("t{i}"));
        match kind(i) {
            Kind::Taken => doc.email = format!("user{}@example.com", 5000 + i / 100),
            Kind::Invalid => doc.score = -1,
            Kind::Stale => {
                accounts
                    .collection()
                    .update_one(doc! { "_id": doc.id }, doc! { "$inc": { "__v": 1 } })
                    .await
                    .unwrap();
            }
            Kind::Good => {}
        }
    }
    docs
}

/// Asserts that outcome `i` is its kind's own error.
fn assert_own_error(i: usize, outcome: &odm::Result<()>) {
    match (kind(i), outcome) {
        (Kind::Stale, Err(Error::Version(_)))
        | (Kind::Taken, Err(Error::DuplicateKey(_)))
        | (Kind::Invalid, Err(Error::Validation(_))) => {}
        other => panic!("Doc {i}: {other:?}"),
    }
}

async fn the_batch_under_each_fault(path: BulkPath) {
    let Some(m) = Monitored::with_fail_points(&format!("bulk_faults_{path:?}")).await else {
        return;
    };
    let accounts = Account::model(m.db());
    accounts.sync_indexes().await.unwrap();
    // 880 of the 1,000: neither stale, nor taken, nor invalid.
    let good = (0..DOCS).filter(|&i| kind(i) == Kind::Good).count();
    assert_eq!(good, 880);
    for fault in Fault::ALL {
        let mut docs = batch(&accounts, path).await;
        let pending: Vec<_> = docs.iter().map(|d| d.changes()).collect();
        let intended: Vec<BsonDocument> = docs.iter().map(|d| at_version(&**d, 1)).collect();
        let before = all_stored(&accounts).await;

        let outcomes = m
            .with_fault(
                common::bulk_paths::update_command(path),
                fault,
                accounts.bulk_save(&mut docs).path(path),
            )
            .await
            .unwrap();
        let stored = all_stored(&accounts).await;
        for (i, (doc, outcome)) in docs.iter().zip(&outcomes).enumerate() {
            let now = &stored[&doc.id];
            match (kind(i), outcome) {
                (Kind::Good, Err(e)) => {
                    assert_reported(e, fault);
                    // Not committed, whether or not it landed.
                    assert_eq!(doc.changes(), pending[i], "{fault:?} Doc {i}");
                    assert_eq!(doc.version(), Some(0));
                    let expected = if fault.applies() {
                        &intended[i]
                    } else {
                        &before[&doc.id]
                    };
                    assert_eq!(now, expected, "{fault:?} Doc {i}");
                }
                (Kind::Invalid, _) => assert_own_error(i, outcome),
                // Without an answer, every other Doc has the batch's error.
                (_, Err(Error::Driver(_))) if !fault.applies() => {
                    assert_eq!(now, &before[&doc.id], "{fault:?} Doc {i}");
                }
                (_, Err(_)) if fault.applies() => {
                    assert_own_error(i, outcome);
                    assert_eq!(now, &before[&doc.id], "{fault:?} Doc {i}");
                }
                other => panic!("{fault:?} Doc {i}: {other:?}"),
            }
            if outcome.is_err() {
                assert_eq!(
                    doc.changes(),
                    pending[i],
                    "{fault:?} Doc {i} keeps its changes"
                );
            }
        }

        // The retry, without the fault: every write lands exactly once.
        let outcomes = accounts.bulk_save(&mut docs).path(path).await.unwrap();
        let stored = all_stored(&accounts).await;
        let mut ok = 0;
        for (i, (doc, outcome)) in docs.iter_mut().zip(&outcomes).enumerate() {
            match (kind(i), outcome) {
                (Kind::Good, Ok(())) if !fault.applies() => {
                    ok += 1;
                    assert_eq!(doc.changes(), None);
                    assert_eq!(doc.version(), Some(1));
                }
                // It landed under the fault: the retry is refused, not applied again.
                (Kind::Good, Err(Error::Version(e))) if fault.applies() => {
                    assert_eq!(e.version, 0);
                    doc.reload().await.unwrap();
                    assert_eq!(doc.version(), Some(1));
                }
                (Kind::Good, other) => panic!("{fault:?} retry Doc {i}: {other:?}"),
                _ => assert_own_error(i, outcome),
            }
            if kind(i) == Kind::Good {
                assert_eq!(
                    stored[&doc.id], intended[i],
                    "{fault:?} Doc {i}: applied once"
                );
                assert_eq!(stored[&doc.id], at_version(&**doc, 1), "stored == memory");
            }
        }
        if !fault.applies() {
            assert_eq!(ok, good, "{fault:?}");
        }
        let saved = accounts
            .count(doc! { "score": { "$gt": 0 }, "__v": 1, "tags.0": { "$exists": true } })
            .await
            .unwrap();
        assert_eq!(saved, good as u64, "{fault:?}: counted against the server");
    }
    m.finish().await;
}

/// A default-mode push does not check the version; after a fault that may
/// have applied it, the next bulk save of that `Doc` checks it, so a push
/// that landed is not pushed twice.
async fn pushes_under_each_fault(path: BulkPath) {
    let Some(m) = Monitored::with_fail_points(&format!("bulk_push_faults_{path:?}")).await else {
        return;
    };
    let items = Item::model(m.db());
    for fault in Fault::ALL {
        let values: Vec<Item> = (0..10)
            .map(|_| Item {
                id: ObjectId::new(),
                tags: vec!["t".into()],
            })
            .collect();
        let mut docs: Vec<_> = items
            .insert_many(values)
            .path(path)
            .await
            .unwrap()
            .into_iter()
            .map(Result::unwrap)
            .collect();
        for doc in &mut docs {
            doc.tags.push("u".into());
        }
        let intended: Vec<_> = docs.iter().map(|d| at_version(&**d, 1)).collect();
        let err = m
            .with_fault(
                common::bulk_paths::update_command(path),
                fault,
                items.bulk_save(&mut docs).path(path),
            )
            .await
            .unwrap_err();
        assert_reported(&err, fault);
        let in_doubt = matches!(
            fault,
            Fault::Closed | Fault::WriteConcern | Fault::Retryable
        ) && docs[0].changes().unwrap().0.contains_key("__v");
        let retried = items.bulk_save(&mut docs).path(path).await.unwrap();
        let stored = all_stored(&items).await;
        for (i, doc) in docs.iter_mut().enumerate() {
            if fault.applies() {
                assert!(
                    in_doubt,
                    "{fault:?}: a push that may have landed checks the version"
                );
                assert!(
                    matches!(&retried[i], Err(Error::Version(_))),
                    "{fault:?}: {:?}",
                    retried[i]
                );
                doc.reload().await.unwrap();
            } else {
                assert!(retried[i].is_ok(), "{fault:?}: {:?}", retried[i]);
            }
            assert_eq!(doc.tags, ["t", "u"]);
            assert_eq!(
                stored[&doc.id], intended[i],
                "{fault:?}: pushed once, bumped once"
            );
        }
    }
    m.finish().await;
}

/// On the `update` command's path (servers before MongoDB 8.0) the server
/// says only how many statements matched, and odm reads the documents back
/// to tell which. Here another writer changes a document whose statement
/// landed while that read is held up (a `blockConnection` fail point), so
/// the read cannot tell which of the two statements matched: both are told
/// in doubt (an error that may have applied), not a version miss (a caller
/// that reloads on a miss and applies its change again would apply it
/// twice). Both `Doc`s keep their changes, and a second `bulk_save` applies
/// nothing twice.
#[tokio::test]
async fn a_write_changed_before_it_is_read_back_is_told_in_doubt() {
    let Some(m) = Monitored::with_fail_points("bulk_unheld").await else {
        return;
    };
    let accounts = Account::model(m.db());
    let (a, b) = (account(1), account(2));
    let (a_id, b_id) = (a.id, b.id);
    accounts.create(a).await.unwrap();
    accounts.create(b).await.unwrap();
    let mut docs = vec![
        accounts.find_by_id(a_id).await.unwrap().unwrap(),
        accounts.find_by_id(b_id).await.unwrap().unwrap(),
    ];
    let raw = accounts.collection();
    // b's copy is stale: its statement misses.
    let bump = doc! { "$set": { "score": 7 }, "$inc": { "__v": 1 } };
    raw.update_one(doc! { "_id": b_id }, bump).await.unwrap();
    docs[0].score = 1;
    docs[1].score = 2;
    m.monitor.clear();
    let block = doc! { "blockConnection": true, "blockTimeMS": 600 };
    let fp = m.fail_with(&["find"], 1, block).await;
    let other_writer = async {
        for _ in 0..300 {
            if m.monitor.started("find") >= 1 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let overwrite = doc! { "$set": { "score": 9 }, "$inc": { "__v": 1 } };
        raw.update_one(doc! { "_id": a_id }, overwrite)
            .await
            .unwrap();
    };
    let save = accounts.bulk_save(&mut docs).path(BulkPath::Commands);
    let (outcomes, ()) = tokio::join!(std::future::IntoFuture::into_future(save), other_writer);
    fp.off().await;
    let outcomes = outcomes.unwrap();
    // The batch's command, and the other writer's.
    let sent = m.monitor.named("update");
    assert_eq!(sent.len(), 2, "{sent:?}");
    let batch = sent[0].command.get_array("updates").unwrap();
    assert_eq!(batch.len(), 2, "one command of both statements");
    assert_eq!(sent[0].matched(), Some(1), "a's statement matched");
    for (i, outcome) in outcomes.iter().enumerate() {
        assert!(
            matches!(outcome, Err(e) if common::bulk_paths::in_doubt(e)),
            "Doc {i}: told {outcome:?}, not in doubt"
        );
    }
    assert_eq!((docs[0].score, docs[0].version()), (1, Some(0)));
    assert_eq!((docs[1].score, docs[1].version()), (2, Some(0)));
    let stored = all_stored(&accounts).await;
    assert_eq!(stored[&a_id].get_i32("score").unwrap(), 9);
    assert_eq!(
        stored[&a_id].get_i32("__v").unwrap(),
        2,
        "landed, then changed"
    );
    assert_eq!(stored[&b_id].get_i32("score").unwrap(), 7);

    // Sent again: both miss on their version, so nothing is applied twice.
    let again = accounts
        .bulk_save(&mut docs)
        .path(BulkPath::Commands)
        .await
        .unwrap();
    assert!(
        again.iter().all(|o| matches!(o, Err(Error::Version(_)))),
        "{again:?}"
    );
    assert_eq!(all_stored(&accounts).await, stored);
    m.finish().await;
}
