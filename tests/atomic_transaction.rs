//! `odm::transaction`: commit together, abort together, retry on
//! transient errors, and `Doc`s rolled back in memory.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{FailPoint, Monitored};
use mongodb::bson::Document as BsonDocument;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use tokio::sync::Barrier;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", optimistic_concurrency)]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    balance: i64,
}

/// The transfer's business rule, an error of the application's own.
#[derive(Debug, PartialEq)]
struct TooLow(i64);

impl std::fmt::Display for TooLow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "balance too low")
    }
}

impl std::error::Error for TooLow {}

fn too_low() -> Error {
    Error::application(TooLow(0))
}

async fn open(accounts: &Model<Account>, id: &str, balance: i64) -> Doc<Account> {
    accounts
        .create(Account {
            id: id.into(),
            balance,
        })
        .await
        .unwrap()
}

async fn stored(accounts: &Model<Account>, id: &str) -> (i64, i32) {
    let raw: BsonDocument = accounts
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap();
    (
        raw.get_i64("balance").unwrap(),
        raw.get_i32("__v")
            .unwrap_or_else(|_| raw.get_i64("__v").unwrap() as i32),
    )
}

/// Moves `amount` from `a` to `b` in one transaction; fails when `a` would
/// go negative, after both writes were sent.
async fn transfer(
    client: &mongodb::Client,
    a: &mut Doc<Account>,
    b: &mut Doc<Account>,
    amount: i64,
    attempts: &AtomicUsize,
) -> odm::Result<()> {
    odm::transaction(client, (a, b, attempts), move |s, (a, b, attempts)| {
        Box::pin(async move {
            attempts.fetch_add(1, Ordering::SeqCst);
            a.balance -= amount;
            a.save().session(s).await?;
            b.balance += amount;
            b.save().session(s).await?;
            if a.balance < 0 {
                return Err(too_low());
            }
            Ok(())
        })
    })
    .await
}

#[tokio::test]
async fn two_documents_commit_together() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let mut a = open(&accounts, "a", 100).await;
    let mut b = open(&accounts, "b", 0).await;
    let attempts = AtomicUsize::new(0);
    transfer(&t.client, &mut a, &mut b, 30, &attempts)
        .await
        .unwrap();
    assert_eq!(attempts.load(Ordering::SeqCst), 1);
    assert_eq!((a.balance, a.version()), (70, Some(1)));
    assert_eq!((b.balance, b.version()), (30, Some(1)));
    assert_eq!(a.changes(), None);
    assert_eq!(stored(&accounts, "a").await, (70, 1));
    assert_eq!(stored(&accounts, "b").await, (30, 1));
    t.finish().await;
}

/// An error in the closure aborts both writes, and both `Doc`s end as they
/// were before the transaction: value, version, nothing pending.
#[tokio::test]
async fn an_error_aborts_both_and_restores_the_docs() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let mut a = open(&accounts, "a", 100).await;
    let mut b = open(&accounts, "b", 0).await;
    let attempts = AtomicUsize::new(0);
    let err = transfer(&t.client, &mut a, &mut b, 130, &attempts)
        .await
        .unwrap_err();
    // The application's own error, as it was returned, and not retried.
    assert_eq!(
        err.application_error::<TooLow>(),
        Some(&TooLow(0)),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "balance too low");
    assert!(!err.is_transient());
    assert_eq!(attempts.load(Ordering::SeqCst), 1);
    assert_eq!(stored(&accounts, "a").await, (100, 0));
    assert_eq!(stored(&accounts, "b").await, (0, 0));
    assert_eq!((a.balance, a.version(), a.changes()), (100, Some(0), None));
    assert_eq!((b.balance, b.version(), b.changes()), (0, Some(0), None));

    // The restored Docs are usable: the next transfer saves at version 0 -> 1.
    transfer(&t.client, &mut a, &mut b, 40, &attempts)
        .await
        .unwrap();
    assert_eq!((a.balance, a.version()), (60, Some(1)));
    assert_eq!(stored(&accounts, "a").await, (60, 1));
    assert_eq!(stored(&accounts, "b").await, (40, 1));
    t.finish().await;
}

/// Fails the next `times` commits of `m`'s client with `code`, labelled `label`.
async fn fail_commit(m: &Monitored, times: i32, code: i32, label: &str) -> FailPoint {
    m.fail_with(
        &["commitTransaction"],
        times,
        doc! { "errorCode": code, "errorLabels": [label] },
    )
    .await
}

/// A commit failing with TransientTransactionError reruns the closure; the
/// `Doc`s are rolled back first, so the rerun does not subtract twice nor
/// save against a version that was never committed.
#[tokio::test]
async fn a_transient_commit_error_reruns_from_the_same_state() {
    let Some(m) = Monitored::with_fail_points("transient").await else {
        return;
    };
    let accounts = Account::model(m.db());
    let mut a = open(&accounts, "a", 100).await;
    let mut b = open(&accounts, "b", 0).await;
    let attempts = AtomicUsize::new(0);
    let fp = fail_commit(&m, 1, 112, "TransientTransactionError").await;
    transfer(m.client(), &mut a, &mut b, 10, &attempts)
        .await
        .unwrap();
    fp.off().await;
    assert_eq!(m.monitor.started("commitTransaction"), 2);
    assert_eq!(
        m.monitor.failed("commitTransaction"),
        1,
        "the fail point fired"
    );
    assert_eq!(attempts.load(Ordering::SeqCst), 2, "the closure ran again");
    assert_eq!((a.balance, a.version()), (90, Some(1)));
    assert_eq!((b.balance, b.version()), (10, Some(1)));
    assert_eq!(stored(&accounts, "a").await, (90, 1));
    assert_eq!(stored(&accounts, "b").await, (10, 1));
    m.finish().await;
}

/// A commit with an unknown result is committed again, without rerunning
/// the closure.
#[tokio::test]
async fn an_unknown_commit_result_retries_the_commit_only() {
    let Some(m) = Monitored::with_fail_points("unknown_commit").await else {
        return;
    };
    let accounts = Account::model(m.db());
    let mut a = open(&accounts, "a", 100).await;
    let mut b = open(&accounts, "b", 0).await;
    let attempts = AtomicUsize::new(0);
    // WriteConflict's code, but labelled as a commit whose outcome is
    // unknown; twice, so the commit is sent three times.
    let fp = fail_commit(&m, 2, 112, "UnknownTransactionCommitResult").await;
    transfer(m.client(), &mut a, &mut b, 10, &attempts)
        .await
        .unwrap();
    fp.off().await;
    assert_eq!(
        m.monitor.started("commitTransaction"),
        3,
        "committed again twice"
    );
    assert_eq!(
        m.monitor.failed("commitTransaction"),
        2,
        "the fail point fired"
    );
    assert_eq!(attempts.load(Ordering::SeqCst), 1, "the closure ran once");
    assert_eq!((a.balance, a.version()), (90, Some(1)));
    assert_eq!(stored(&accounts, "a").await, (90, 1));
    assert_eq!(stored(&accounts, "b").await, (10, 1));
    m.finish().await;
}

/// Two transactions read and change the same account at once: the write
/// conflict is retried and both land.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_conflict_is_retried_and_both_land() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    for round in 0..5 {
        let shared = format!("shared{round}");
        open(&accounts, &shared, 0).await;
        open(&accounts, &format!("x{round}"), 0).await;
        open(&accounts, &format!("y{round}"), 0).await;
        let both_read = Arc::new(Barrier::new(2));
        let attempts = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = ["x", "y"]
            .into_iter()
            .map(|own| {
                let (client, accounts, both_read, attempts) = (
                    t.client.clone(),
                    accounts.clone(),
                    both_read.clone(),
                    attempts.clone(),
                );
                let (shared, own) = (shared.clone(), format!("{own}{round}"));
                tokio::spawn(async move {
                    let mine = AtomicUsize::new(0);
                    odm::transaction(
                        &client,
                        (&accounts, &both_read, &mine),
                        |s, (accounts, both_read, mine)| {
                            let (shared, own) = (shared.clone(), own.clone());
                            Box::pin(async move {
                                let first = mine.fetch_add(1, Ordering::SeqCst) == 0;
                                let add_one = |a: &mut Account| {
                                    a.balance += 1;
                                    Ok(())
                                };
                                accounts
                                    .update_with_retry(own, 1, add_one)
                                    .session(s)
                                    .await?;
                                // Both transactions are open before either touches the shared account.
                                if first {
                                    both_read.wait().await;
                                }
                                accounts
                                    .update_with_retry(shared, 1, add_one)
                                    .session(s)
                                    .await?;
                                Ok(())
                            })
                        },
                    )
                    .await
                    .unwrap();
                    attempts.fetch_add(mine.load(Ordering::SeqCst), Ordering::SeqCst);
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        let attempts = attempts.load(Ordering::SeqCst);
        println!("round {round}: {attempts} attempts for 2 transactions");
        assert!(attempts > 2, "one transaction was retried");
        assert_eq!(stored(&accounts, &shared).await, (2, 2));
        assert_eq!(stored(&accounts, &format!("x{round}")).await, (1, 1));
        assert_eq!(stored(&accounts, &format!("y{round}")).await, (1, 1));
    }
    t.finish().await;
}

/// A default-mode basket: a push sends no version term of its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "baskets")]
struct Basket {
    #[serde(rename = "_id")]
    id: String,
    items: Vec<String>,
}

/// A commit given up on with its outcome unknown (here MaxTimeMSExpired,
/// labelled UnknownTransactionCommitResult: retrying cannot help) may have
/// landed. The `Doc` goes back to its state before the transaction, but in
/// doubt: the same push saved again checks the version, so had the commit
/// landed it would fail with `Error::Version` instead of pushing twice. A
/// plain rollback (the closure failed) leaves the push unchecked.
#[tokio::test]
async fn a_commit_given_up_in_doubt_makes_the_next_push_check_the_version() {
    let Some(m) = Monitored::with_fail_points("commit_in_doubt").await else {
        return;
    };
    let baskets = Basket::model(m.db());
    let mut basket = baskets
        .create(Basket {
            id: "b".into(),
            items: vec![],
        })
        .await
        .unwrap();
    let fp = fail_commit(&m, 1, 50, "UnknownTransactionCommitResult").await;
    let mut session = m.client().start_session().await.unwrap();
    let e = odm::transaction(m.client(), (&mut basket,), |s, (basket,)| {
        Box::pin(async move {
            basket.items.push("apple".into());
            basket.save().session(s).await
        })
    })
    .session(&mut session)
    .await
    .unwrap_err();
    fp.off().await;
    // The refused commit left the transaction open on the server, holding
    // the document's lock: end it, as its timeout would.
    m.kill(session).await;
    assert_eq!(
        m.monitor.failed("commitTransaction"),
        1,
        "the fail point fired"
    );
    assert!(e.to_string().contains("50"), "{e}");
    // Rolled back to the state before the transaction, in doubt.
    assert_eq!((basket.items.len(), basket.version()), (0, Some(0)));
    basket.items.push("apple".into());
    assert_eq!(
        basket.changes().unwrap().0,
        doc! { "_id": "b", "__v": 0 },
        "the push checks the version"
    );
    // The commit did not land here, so the checked push saves, once.
    basket.save().await.unwrap();
    let stored = baskets
        .collection()
        .find_one(doc! { "_id": "b" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.get_array("items").unwrap().len(), 1);
    // Settled by that save: the next push is unchecked again.
    basket.items.push("pear".into());
    assert_eq!(basket.changes().unwrap().0, doc! { "_id": "b" });
    m.finish().await;
}
