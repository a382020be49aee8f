//! Upsert, claim, lease acquisition and transaction commit under injected
//! faults (see tests/faults.rs): a closed connection, a retryable error, a
//! write concern error (the write IS applied) and a non-retryable error.
//! The command monitor proves every fault fired.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::faults::{assert_reported, assert_sent};
use common::{Fault, Monitored};
use mongodb::bson::Document as BsonDocument;
use odm::lock::Leases;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(unique)]
    email: String,
    plan: String,
    visits: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "tasks", optimistic_concurrency)]
struct Task {
    #[serde(rename = "_id")]
    id: i64,
    state: String,
    owner: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts")]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    balance: i64,
    log: Vec<String>,
}

async fn raw<T: odm::Document>(model: &Model<T>, filter: BsonDocument) -> Vec<BsonDocument> {
    use futures_util::TryStreamExt;
    let found = model.collection().find(filter).await.unwrap();
    found.try_collect().await.unwrap()
}

/// A first upsert (an insert) and a second (an update of the stored user).
/// The upsert's data writes are idempotent (`$set`, `$setOnInsert`), so
/// whether or not the failed one landed, its retry ends in the intended
/// state, and the unique index keeps it one document. The version counts
/// the writes that landed: 0 for the insert, one more per update.
#[tokio::test]
async fn upsert_under_each_fault() {
    let Some(m) = Monitored::with_fail_points("upsert").await else {
        return;
    };
    let users = User::model(m.db());
    users.sync_indexes().await.unwrap();
    for fault in Fault::ALL {
        let email = format!("{fault:?}@b.c");
        let upsert = |plan: &str, visits: i64| {
            users
                .upsert(doc! { "email": &email })
                .set(doc! { "visits": visits })
                .set_on_insert(doc! { "plan": plan })
        };
        m.failing("findAndModify", fault, upsert("free", 1)).await;
        let stored = raw(&users, doc! { "email": &email }).await;
        assert_eq!(stored.len(), usize::from(fault.applies()), "{fault:?}");
        let first = upsert("free", 1).await.unwrap();
        assert_eq!((first.plan.as_str(), first.visits), ("free", 1));
        let landed_before = i64::from(fault.applies());
        assert_eq!(first.version(), Some(landed_before), "{fault:?}");

        m.failing("findAndModify", fault, upsert("pro", 2)).await;
        let visits = if fault.applies() { 2 } else { 1 };
        let stored = raw(&users, doc! { "email": &email }).await;
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].get_i64("visits").unwrap(), visits, "{fault:?}");
        let second = upsert("pro", 2).await.unwrap();
        assert_eq!(second.id, first.id);
        assert_eq!((second.plan.as_str(), second.visits), ("free", 2));
        let stored = raw(&users, doc! { "email": &email }).await;
        let version = landed_before + 1 + i64::from(fault.applies());
        assert_eq!(second.version(), Some(version), "{fault:?}");
        let mut stored = stored;
        let mut stored = stored.remove(0);
        let stored_version = stored
            .remove("__v")
            .and_then(|v| common::bson::from_bson::<i64>(v).ok());
        assert_eq!(stored_version, Some(version), "{fault:?}");
        let mut expected =
            doc! { "_id": first.id, "email": &email, "plan": "free", "visits": 2_i64 };
        for (k, v) in &stored {
            assert_eq!(expected.remove(k).as_ref(), Some(v), "{fault:?}: {k}");
        }
        assert!(expected.is_empty(), "{fault:?}: missing {expected:?}");
    }
    m.finish().await;
}

/// A claim that fails before it runs leaves the task to be claimed again.
/// One applied whose answer is lost (a write concern error here; a lost
/// connection after the server ran it on MongoDB) is claimed, but its
/// caller got an error and a plain retry gets `None`: the claim filter no
/// longer matches. A claim filter that also matches the caller's own claim
/// finds it again.
#[tokio::test]
async fn claim_under_each_fault() {
    let Some(m) = Monitored::with_fail_points("claim").await else {
        return;
    };
    let tasks = Task::model(m.db());
    for (n, fault) in Fault::ALL.into_iter().enumerate() {
        let id = n as i64;
        tasks
            .create(Task {
                id,
                state: "pending".into(),
                owner: None,
            })
            .await
            .unwrap();
        let claim = |filter: BsonDocument| {
            tasks.claim(
                filter,
                doc! { "$set": { "state": "running", "owner": 7_i64 } },
            )
        };
        let pending = doc! { "_id": id, "state": "pending" };
        m.failing("findAndModify", fault, claim(pending.clone()))
            .await;
        let claimed = doc! { "_id": id, "state": "running", "owner": 7_i64, "__v": 1 };
        let unclaimed = doc! { "_id": id, "state": "pending", "owner": null, "__v": 0 };
        let stored = raw(&tasks, doc! { "_id": id }).await;
        if fault.applies() {
            assert_eq!(stored, std::slice::from_ref(&claimed), "{fault:?}: claimed");
            assert!(claim(pending).await.unwrap().is_none(), "{fault:?}");
            // A filter that matches the caller's own claim finds it again
            // (its update runs again: same state and owner, one more bump).
            let mine = doc! { "_id": id, "$or": [{ "state": "pending" }, { "owner": 7_i64 }] };
            let task = claim(mine).await.unwrap().unwrap();
            assert_eq!((task.state.as_str(), task.owner), ("running", Some(7)));
            assert_eq!(task.version(), Some(2));
        } else {
            assert_eq!(stored, [unclaimed], "{fault:?}: not claimed");
            let task = claim(pending).await.unwrap().unwrap();
            assert_eq!((task.state.as_str(), task.owner), ("running", Some(7)));
            assert_eq!(raw(&tasks, doc! { "_id": id }).await, [claimed]);
        }
    }
    m.finish().await;
}

/// An acquisition refused by the server takes nothing: the next one gets
/// the lease. One that may have landed (a lost connection, a write concern
/// error) is sent once more with the same owner, which finds the lease
/// its own: the caller holds it with the token the landed write gave it,
/// instead of an error and a lease held by nobody until its ttl ends.
#[tokio::test]
async fn lease_acquire_under_each_fault() {
    let Some(m) = Monitored::with_fail_points("lease").await else {
        return;
    };
    let leases = Leases::new(m.db(), "locks");
    let ttl = Duration::from_secs(30);
    for fault in Fault::ALL {
        let key = format!("{fault:?}");
        let acquired = m
            .with_fault(
                "findAndModify",
                fault,
                leases.try_acquire(key.as_str(), ttl),
            )
            .await;
        let stored = leases
            .collection()
            .find_one(doc! { "_id": &key })
            .await
            .unwrap();
        let lease = match fault {
            Fault::Closed | Fault::WriteConcern => {
                assert_eq!(
                    m.monitor.started("findAndModify"),
                    2,
                    "{fault:?}: sent again"
                );
                let lease = acquired.unwrap().expect("the lease is ours");
                let stored = stored.unwrap();
                assert!(stored.get_object_id("owner").is_ok());
                assert_eq!(stored.get_i64("token").unwrap(), lease.token());
                lease
            }
            Fault::Retryable | Fault::NonRetryable => {
                assert_reported(&acquired.unwrap_err(), fault);
                assert_eq!(m.monitor.started("findAndModify"), 1);
                assert_eq!(stored, None, "{fault:?}: nothing taken");
                leases
                    .try_acquire(key.as_str(), ttl)
                    .await
                    .unwrap()
                    .unwrap()
            }
        };
        assert_eq!(lease.token(), 1, "{fault:?}: the first token");
        // Held: nobody else gets it; released: the next holder does.
        assert!(leases
            .try_acquire(key.as_str(), ttl)
            .await
            .unwrap()
            .is_none());
        lease.release().await.unwrap();
        let next = leases
            .try_acquire(key.as_str(), ttl)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(next.token(), 2);
        next.release().await.unwrap();
    }
    // The waiting acquire goes through the same attempt.
    let acquire = leases.acquire_timeout("waiting", ttl, Duration::from_secs(2));
    let lease = m.with_fault("findAndModify", Fault::WriteConcern, acquire);
    let lease = lease.await.unwrap();
    assert_eq!(lease.token(), 1);
    lease.release().await.unwrap();
    m.finish().await;
}

/// Moves 10 from `a` to `b` and logs it in both, in one transaction.
async fn transfer(
    client: &mongodb::Client,
    session: &mut mongodb::ClientSession,
    a: &mut Doc<Account>,
    b: &mut Doc<Account>,
    runs: &AtomicUsize,
) -> odm::Result<()> {
    odm::transaction(client, (a, b, runs), |s, (a, b, runs)| {
        Box::pin(async move {
            runs.fetch_add(1, Ordering::SeqCst);
            a.balance -= 10;
            a.log.push("out".into());
            a.save().session(s).await?;
            b.balance += 10;
            b.log.push("in".into());
            b.save().session(s).await?;
            Ok(())
        })
    })
    .session(session)
    .await
}

/// A commit that failed with an unknown result (a lost connection, a
/// retryable error, a write concern error: the driver labels all three
/// UnknownTransactionCommitResult) is committed again, without running the
/// callback again: the transfer lands once. A commit refused outright
/// fails: nothing lands and both `Doc`s are as before the transaction.
/// (The callback pushes to an array in default mode, which bumps the
/// version without checking it: a second run would push twice.)
#[tokio::test]
async fn transaction_commit_under_each_fault() {
    let Some(m) = Monitored::with_fail_points("commit").await else {
        return;
    };
    let accounts = Account::model(m.db());
    for fault in Fault::ALL {
        let (ka, kb) = (format!("a{fault:?}"), format!("b{fault:?}"));
        let open = |id: &str, balance| Account {
            id: id.into(),
            balance,
            log: vec![],
        };
        let mut a = accounts.create(open(&ka, 100)).await.unwrap();
        let mut b = accounts.create(open(&kb, 0)).await.unwrap();
        let runs = AtomicUsize::new(0);
        let mut session = m.client().start_session().await.unwrap();
        let moved = transfer(m.client(), &mut session, &mut a, &mut b, &runs);
        let result = m.with_fault("commitTransaction", fault, moved).await;
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "{fault:?}: the callback ran once"
        );
        let stored = |id: &str, balance: i64, log: &[&str], v: i32| {
            doc! { "_id": id, "balance": balance, "log": log, "__v": v }
        };
        let landed = [stored(&ka, 90, &["out"], 1), stored(&kb, 10, &["in"], 1)];
        let before = [stored(&ka, 100, &[], 0), stored(&kb, 0, &[], 0)];
        if fault == Fault::NonRetryable {
            assert_sent(&m.monitor, "commitTransaction", &[fault]);
            assert_eq!(m.monitor.started("commitTransaction"), 1);
            assert_reported(&result.unwrap_err(), fault);
            assert_eq!(
                raw(&accounts, doc! { "_id": { "$in": [&ka, &kb] } }).await,
                before
            );
            assert_eq!((a.balance, a.version(), a.changes()), (100, Some(0), None));
            assert_eq!((b.balance, b.version(), b.changes()), (0, Some(0), None));
            // The driver's own `with_transaction` leaves such a transaction
            // open too; killing the session ends it at once.
            m.kill(session).await;
            let mut fresh = m.client().start_session().await.unwrap();
            transfer(m.client(), &mut fresh, &mut a, &mut b, &runs)
                .await
                .unwrap();
            assert_eq!(runs.load(Ordering::SeqCst), 2, "no write conflict left");
        } else {
            result.unwrap();
            assert_sent(&m.monitor, "commitTransaction", &[fault]);
            assert_eq!(
                m.monitor.started("commitTransaction"),
                2,
                "{fault:?}: committed again"
            );
        }
        assert_eq!((a.balance, a.version(), a.changes()), (90, Some(1), None));
        assert_eq!((b.balance, b.version(), b.changes()), (10, Some(1), None));
        assert_eq!(
            raw(&accounts, doc! { "_id": { "$in": [&ka, &kb] } }).await,
            landed,
            "{fault:?}: landed once"
        );
    }
    m.finish().await;
}
