//! `odm::lock::Leases` against the server: exclusion under contention,
//! expiry by the database's clock, tokens that never go back, one command
//! per acquisition, keep-alive and loss.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Monitored, Race};
use mongodb::bson::{doc, Bson, DateTime, Document};
use odm::lock::Leases;
use odm::Error;
use odm_testing::TestDb;

const LONG: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_contenders_never_overlap_and_tokens_increase() {
    const ACQUISITIONS: usize = 200;
    let t = TestDb::new().await;
    let leases = Leases::new(&t.db, "locks");
    let inside = Arc::new(AtomicUsize::new(0));
    let overlaps = Arc::new(AtomicUsize::new(0));
    let granted = Arc::new(AtomicUsize::new(0));
    let tokens = Arc::new(Mutex::new(Vec::new()));
    let race = Race::new(20);
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let (leases, inside, overlaps, granted, tokens) = (
                leases.clone(),
                inside.clone(),
                overlaps.clone(),
                granted.clone(),
                tokens.clone(),
            );
            tokio::spawn(race.clone().run(async move {
                let mut mine = 0;
                loop {
                    let lease = leases.acquire("report:42", LONG).await.unwrap();
                    if inside.fetch_add(1, Ordering::SeqCst) != 0 {
                        overlaps.fetch_add(1, Ordering::SeqCst);
                    }
                    let done = granted.fetch_add(1, Ordering::SeqCst) >= ACQUISITIONS;
                    if !done {
                        tokens.lock().unwrap().push(lease.token());
                        mine += 1;
                    }
                    tokio::task::yield_now().await;
                    inside.fetch_sub(1, Ordering::SeqCst);
                    lease.release().await.unwrap();
                    if done {
                        return mine;
                    }
                }
            }))
        })
        .collect();
    let mut per_task = Vec::new();
    for task in tasks {
        per_task.push(task.await.unwrap());
    }
    let tokens = tokens.lock().unwrap().clone();
    assert_eq!(overlaps.load(Ordering::SeqCst), 0, "overlapping holders");
    assert!(race.most() > 1, "the contenders raced");
    assert_eq!(tokens.len(), ACQUISITIONS);
    assert_eq!(per_task.iter().sum::<usize>(), ACQUISITIONS);
    assert!(
        tokens.windows(2).all(|w| w[0] < w[1]),
        "tokens in grant order: {tokens:?}"
    );
    t.finish().await;
}

#[tokio::test]
async fn an_expired_holder_loses_the_lease_and_cannot_renew_or_release() {
    let t = TestDb::new().await;
    let leases = Leases::new(&t.db, "locks");
    let stale = leases
        .acquire("job:1", Duration::from_millis(300))
        .await
        .unwrap();
    assert!(leases.try_acquire("job:1", LONG).await.unwrap().is_none());
    // The holder stops renewing; the next one waits out its ttl.
    let next = leases.acquire("job:1", LONG).await.unwrap();
    assert!(next.token() > stale.token());
    match stale.renew().await {
        Err(Error::LeaseLost(e)) => {
            assert_eq!(e.key, "job:1");
            assert_eq!(e.token, stale.token());
        }
        other => panic!("expected LeaseLost, got {other:?}"),
    }
    assert!(stale.is_lost());
    assert!(matches!(stale.release().await, Err(Error::LeaseLost(_))));
    // The new holder was not disturbed.
    next.renew().await.unwrap();
    next.release().await.unwrap();
    t.finish().await;
}

#[tokio::test]
async fn timeouts_and_single_attempts() {
    let t = TestDb::new().await;
    let leases = Leases::new(&t.db, "locks");
    let held = leases.acquire("k", LONG).await.unwrap();
    match leases
        .acquire_timeout("k", LONG, Duration::from_millis(200))
        .await
    {
        Err(Error::LeaseTimeout(e)) => assert_eq!(e.key, "k"),
        other => panic!("expected LeaseTimeout, got {other:?}"),
    }
    assert!(leases.try_acquire("k", LONG).await.unwrap().is_none());
    let other_key = leases.try_acquire("k2", LONG).await.unwrap().expect("free");
    assert_eq!(other_key.token(), 1);
    held.release().await.unwrap();
    let again = leases
        .acquire_timeout("k", LONG, Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(again.token(), 2);
    t.finish().await;
}

#[tokio::test]
async fn tokens_keep_growing_across_release_expiry_and_restart() {
    let t = TestDb::new().await;
    let mut last = 0;
    for i in 0..1_000 {
        // A new handle now and then: an instance that restarted.
        let leases = Leases::new(&t.db, "locks");
        let expiring = i % 2 == 1;
        let ttl = if expiring {
            Duration::from_millis(1)
        } else {
            LONG
        };
        let lease = leases.acquire("counter", ttl).await.unwrap();
        assert!(
            lease.token() > last,
            "acquisition {i}: {} after {last}",
            lease.token()
        );
        last = lease.token();
        if !expiring {
            lease.release().await.unwrap();
        }
    }
    assert_eq!(last, 1_000);
    let stored =
        t.db.collection::<Document>("locks")
            .find_one(doc! { "_id": "counter" })
            .await
            .unwrap()
            .expect("release keeps the lease document");
    assert_eq!(stored.get_i64("token").unwrap(), 1_000);
    t.finish().await;
}

#[tokio::test]
async fn acquiring_is_one_command_judged_by_the_database_clock() {
    let m = Monitored::new("one_command").await;
    let leases = Leases::new(m.db(), "locks");
    let commands = || -> Vec<(String, Document)> {
        let sent = m
            .monitor
            .all()
            .into_iter()
            .filter(|s| s.db == m.db().name());
        sent.map(|s| (s.name, s.command)).collect()
    };
    let lease = leases.acquire("first-use", LONG).await.unwrap();
    let sent = commands();
    m.monitor.clear();
    assert_eq!(sent.len(), 1, "one command per acquisition: {sent:?}");
    let (name, command) = &sent[0];
    assert_eq!(name, "findAndModify");
    assert!(command.get_bool("upsert").unwrap());
    let update = command.get_array("update").expect("an update pipeline");
    let text = Bson::Array(update.clone()).to_string();
    assert!(
        text.contains("$$NOW"),
        "expiry by the database clock: {text}"
    );

    // An acquisition of a held lease is one command too.
    assert!(leases
        .try_acquire("first-use", LONG)
        .await
        .unwrap()
        .is_none());
    assert_eq!(commands().len(), 1);
    lease.release().await.unwrap();
    m.finish().await;
}

#[tokio::test]
async fn keep_alive_holds_the_lease_and_reports_its_loss() {
    let t = TestDb::new().await;
    let leases = Leases::new(&t.db, "locks");
    let mut lease = leases
        .acquire("long-job", Duration::from_millis(1_200))
        .await
        .unwrap();
    lease.keep_alive();
    // Well past the ttl: still held, because it is renewed (every 400 ms:
    // a renewal may wait 800 ms on a loaded machine and still hold it).
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert!(!lease.is_lost());
    assert!(leases
        .try_acquire("long-job", LONG)
        .await
        .unwrap()
        .is_none());
    lease.renew().await.unwrap();

    // Someone takes it away (here: an operator expiring it by hand).
    t.db.collection::<Document>("locks")
        .update_one(
            doc! { "_id": "long-job" },
            doc! { "$set": { "expiresAt": DateTime::from_millis(0) } },
        )
        .await
        .unwrap();
    tokio::time::timeout(LONG, lease.lost())
        .await
        .expect("the holder hears of the loss");
    assert!(lease.is_lost());
    assert!(matches!(lease.check(), Err(Error::LeaseLost(_))));
    assert!(matches!(lease.release().await, Err(Error::LeaseLost(_))));
    t.finish().await;
}
