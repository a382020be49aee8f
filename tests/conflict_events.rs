//! Conflict telemetry (issue 34): one `tracing` event at target
//! `odm::conflict` per refused stale write, fenced refusal, retry of
//! `update_with_retry`, resent upsert and write left in doubt, with the
//! documented fields, captured here by a test subscriber; none for a write
//! that lands.

use crate::common;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Fault, Monitored};
use odm::lock::Leases;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use tracing::field::{Field, Visit};
use tracing::instrument::WithSubscriber;
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", optimistic_concurrency)]
pub struct Account {
    #[serde(rename = "_id")]
    pub id: i64,
    #[odm(unique)]
    pub email: String,
    pub status: String,
    pub balance: i64,
}

fn account(id: i64) -> Account {
    Account {
        id,
        email: format!("{id}@example.com"),
        status: "NEW".into(),
        balance: 0,
    }
}

/// One captured event: its level and fields (as text).
#[derive(Debug, Clone)]
struct Captured {
    level: Level,
    fields: BTreeMap<String, String>,
}

impl Captured {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// Keeps every `odm::conflict` event; `values` turns the command log's
/// TRACE (the switch of values) on too.
#[derive(Clone, Default)]
struct Capture {
    values: bool,
    events: Arc<Mutex<Vec<Captured>>>,
}

impl Capture {
    /// The events so far, and forget them. Called inside the capture's
    /// scope, where it first has `tracing` compute every callsite's cached
    /// interest again: a callsite first reached on a thread outside any
    /// capture's scope while only one capture was alive caches that
    /// thread's "never" (see `tests/command_log.rs`, `fresh_interest`).
    fn take(&self) -> Vec<Captured> {
        tracing::callsite::rebuild_interest_cache();
        std::mem::take(&mut *self.events.lock().unwrap())
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
}

impl Subscriber for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == "odm::conflict" || (self.values && metadata.target() == "odm::command")
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        if event.metadata().target() != "odm::conflict" {
            return;
        }
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        self.events.lock().unwrap().push(Captured {
            level: *event.metadata().level(),
            fields,
        });
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// The fields every event has.
fn assert_common(e: &Captured, operation: &str, outcome: &str) {
    assert_eq!(e.field("model"), Some("Account"), "{e:?}");
    assert_eq!(e.field("collection"), Some("accounts"), "{e:?}");
    assert_eq!(e.field("operation"), Some(operation), "{e:?}");
    assert_eq!(e.field("outcome"), Some(outcome), "{e:?}");
    assert!(e.fields.contains_key("paths"), "{e:?}");
}

#[tokio::test]
async fn a_stale_save_is_one_event_naming_both_sides_and_a_landed_one_none() {
    let t = TestDb::new().await;
    let capture = Capture::default();
    let accounts = Account::model(&t.db);
    let run = async {
        accounts.create(account(1)).await.unwrap();
        let mut a = accounts.find_by_id(1).await.unwrap().unwrap();
        let mut b = accounts.find_by_id(1).await.unwrap().unwrap();
        a.status = "ACTIVE".into();
        a.save().await.unwrap();
        assert!(capture.take().is_empty(), "a save that lands is no event");
        b.balance = 5;
        b.status = "CLOSED".into();
        assert!(matches!(b.save().await, Err(Error::Version(_))));
        let events = capture.take();
        assert_eq!(events.len(), 1, "{events:?}");
        let e = &events[0];
        assert_common(e, "save", "stale");
        assert_eq!(e.level, Level::INFO);
        assert_eq!(e.field("paths"), Some("status, balance"));
        assert_eq!(e.field("stored"), Some("status"));
        assert_eq!(e.field("version"), Some("0"));
        // No value unless values are shown: not even the id.
        assert_eq!(e.field("id"), None);
        assert!(!format!("{e:?}").contains("CLOSED"), "{e:?}");
    };
    run.with_subscriber(capture.clone()).await;

    // With values shown (the command log's TRACE), the id too.
    let shown = Capture {
        values: true,
        ..Capture::default()
    };
    let run = async {
        let mut a = accounts.find_by_id(1).await.unwrap().unwrap();
        let mut b = accounts.find_by_id(1).await.unwrap().unwrap();
        a.status = "X".into();
        a.save().await.unwrap();
        b.status = "Y".into();
        assert!(b.save().await.is_err());
        let events = shown.take();
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0].field("id"), Some("1"));
    };
    run.with_subscriber(shown.clone()).await;
    t.finish().await;
}

#[tokio::test]
async fn each_stale_doc_of_a_bulk_save_is_one_event() {
    let t = TestDb::new().await;
    let capture = Capture::default();
    let accounts = Account::model(&t.db);
    let run = async {
        for id in 1..=3 {
            accounts.create(account(id)).await.unwrap();
        }
        let mut batch = accounts
            .find(doc! {})
            .sort(doc! { "_id": 1 })
            .await
            .unwrap();
        for id in [1, 3] {
            let mut other = accounts.find_by_id(id).await.unwrap().unwrap();
            other.balance = 100;
            other.save().await.unwrap();
        }
        for doc in batch.iter_mut() {
            doc.status = "BULK".into();
        }
        let outcomes = accounts.bulk_save(&mut batch).await.unwrap();
        let stale = outcomes.iter().filter(|o| o.is_err()).count();
        assert_eq!(stale, 2);
        let events = capture.take();
        assert_eq!(events.len(), 2, "{events:?}");
        for e in &events {
            assert_common(e, "bulk_save", "stale");
            assert_eq!(e.field("paths"), Some("status"));
            assert_eq!(e.field("stored"), Some("balance"));
        }
    };
    run.with_subscriber(capture.clone()).await;
    t.finish().await;
}

#[tokio::test]
async fn every_retry_of_update_with_retry_is_one_event() {
    let t = TestDb::new().await;
    let capture = Capture::default();
    let accounts = Account::model(&t.db);
    accounts.create(account(1)).await.unwrap();
    let tries = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let tasks = 6;
    let rounds = 5;
    let mut handles = Vec::new();
    for _ in 0..tasks {
        let accounts = accounts.clone();
        let tries = Arc::clone(&tries);
        let capture = capture.clone();
        handles.push(tokio::spawn(
            async move {
                for _ in 0..rounds {
                    accounts
                        .update_with_retry(1, 100, |a: &mut Account| {
                            tries.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            a.balance += 1;
                            Ok(())
                        })
                        .await
                        .unwrap();
                }
            }
            .with_subscriber(capture),
        ));
    }
    for h in handles {
        h.await.unwrap();
    }
    let stored = accounts.find_by_id(1).await.unwrap().unwrap();
    assert_eq!(stored.balance, (tasks * rounds) as i64);
    let events = capture.take();
    let retries = tries.load(std::sync::atomic::Ordering::SeqCst) - tasks * rounds;
    assert_eq!(events.len(), retries, "one event per retry");
    for e in &events {
        assert_common(e, "update_with_retry", "retried");
        assert_eq!(e.field("paths"), Some("balance"));
        assert!(e.field("attempt").unwrap().parse::<u64>().unwrap() >= 1);
        // The tries before the last reload anyway: nothing more is read.
        assert_eq!(e.field("stored"), None);
    }
    println!("{} increments, {retries} retries", tasks * rounds);
    t.finish().await;
}

#[tokio::test]
async fn fenced_refusals_of_a_save_a_claim_and_an_upsert_are_events() {
    let t = TestDb::new().await;
    let capture = Capture::default();
    let accounts = Account::model(&t.db);
    let leases = Leases::new(&t.db, "locks");
    let run = async {
        accounts.sync_indexes().await.unwrap();
        accounts.create(account(1)).await.unwrap();
        let ttl = Duration::from_millis(200);
        let old = leases.acquire("account:1", ttl).await.unwrap();
        let mut stale = accounts.find_by_id(1).await.unwrap().unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let new = leases.acquire("account:1", ttl).await.unwrap();
        let mut fresh = accounts.find_by_id(1).await.unwrap().unwrap();
        fresh.balance = 1;
        fresh.save().fenced(&new).await.unwrap();
        assert!(capture.take().is_empty());

        stale.status = "STALE".into();
        assert!(matches!(
            stale.save().fenced(&old).await,
            Err(Error::Fenced(_))
        ));
        let claimed = accounts
            .claim(doc! { "_id": 1 }, doc! { "$set": { "status": "C" } })
            .fenced(&old)
            .await;
        assert!(matches!(claimed, Err(Error::Fenced(_))), "{claimed:?}");
        let upserted = accounts
            .upsert(doc! { "_id": 1 })
            .set(doc! { "status": "U" })
            .fenced(&old)
            .await;
        assert!(matches!(upserted, Err(Error::Fenced(_))), "{upserted:?}");
        let events = capture.take();
        let seen: Vec<(&str, &str)> = events
            .iter()
            .map(|e| (e.field("operation").unwrap(), e.field("outcome").unwrap()))
            .collect();
        assert_eq!(
            seen,
            [
                ("save", "fenced"),
                ("claim", "fenced"),
                ("upsert", "fenced")
            ],
            "{events:?}"
        );
        for e in &events {
            assert_eq!(e.field("token"), Some(old.token().to_string().as_str()));
            assert_eq!(e.field("id"), None);
        }
    };
    run.with_subscriber(capture.clone()).await;
    t.finish().await;
}

#[tokio::test]
async fn an_upsert_sent_again_after_a_duplicate_key_is_one_event() {
    let t = TestDb::new().await;
    let capture = Capture::default();
    let accounts = Account::model(&t.db);
    let run = async {
        accounts.sync_indexes().await.unwrap();
        accounts.create(account(1)).await.unwrap();
        // The filter matches no document, so the server inserts one whose
        // email the unique index refuses: odm sends it once more.
        let refused = accounts
            .upsert(doc! { "email": "1@example.com", "status": "OTHER" })
            .set_on_insert(doc! { "_id": 2_i64, "balance": 0_i64 })
            .await;
        assert!(
            matches!(refused, Err(Error::DuplicateKey(_))),
            "{refused:?}"
        );
        let events = capture.take();
        assert_eq!(events.len(), 1, "{events:?}");
        assert_common(&events[0], "upsert", "resent");
        assert_eq!(events[0].field("reason"), Some("duplicate_key"));
        assert_eq!(events[0].field("attempt"), Some("1"));
    };
    run.with_subscriber(capture.clone()).await;
    t.finish().await;
}

#[tokio::test]
async fn a_save_left_in_doubt_is_one_warning() {
    let Some(m) = Monitored::with_fail_points("conflict-events-doubt").await else {
        return;
    };
    let capture = Capture::default();
    let accounts = Account::model(m.db());
    let run = async {
        accounts.create(account(1)).await.unwrap();
        let mut a = accounts.find_by_id(1).await.unwrap().unwrap();
        a.status = "ACTIVE".into();
        let fail = m.fail(&["update"], 1, Fault::WriteConcern).await;
        assert!(a.save().await.is_err());
        fail.off().await;
        let events = capture.take();
        assert_eq!(events.len(), 1, "{events:?}");
        assert_common(&events[0], "save", "in_doubt");
        assert_eq!(events[0].level, Level::WARN);
        assert_eq!(events[0].field("code"), Some("64"));
    };
    run.with_subscriber(capture.clone()).await;
    m.finish().await;
}
