//! Count conflicts per model in production, with a `tracing` layer.
//!
//! odm reports every conflict as one `tracing` event with target
//! `odm::conflict` (a stale write refused, a fenced write refused, a retry
//! of `update_with_retry`, an upsert sent again, a write left in doubt),
//! with the fields `model`, `collection`, `operation`, `outcome` and
//! `paths` (and `stored`, `version`, `token`, `attempt`, `reason`, `code`
//! where they apply). A layer that counts them by `(model, operation,
//! outcome)` is a few lines; export the counts as metrics instead of
//! parsing log lines.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use odm::prelude::*;
use serde::{Deserialize, Serialize};
use tracing::field::{Field, Visit};
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// `(model, operation, outcome)` -> how many events.
pub type Counts = BTreeMap<(String, String, String), u64>;

/// A layer counting `odm::conflict` events per model, operation and
/// outcome. Clones share the counts.
#[derive(Clone, Default)]
pub struct ConflictCounter {
    counts: Arc<Mutex<Counts>>,
}

impl ConflictCounter {
    /// The counts so far.
    pub fn counts(&self) -> Counts {
        self.counts.lock().unwrap().clone()
    }
}

/// The three fields the counter keys on.
#[derive(Default)]
struct Key {
    model: String,
    operation: String,
    outcome: String,
}

impl Visit for Key {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "model" => self.model = value.to_string(),
            "operation" => self.operation = value.to_string(),
            "outcome" => self.outcome = value.to_string(),
            _ => {}
        }
    }
    fn record_debug(&mut self, _: &Field, _: &dyn fmt::Debug) {}
}

impl<S: Subscriber> Layer<S> for ConflictCounter {
    /// Only odm's conflict events: the command log (`odm::command`) stays
    /// off, so it costs nothing here.
    fn enabled(&self, metadata: &Metadata<'_>, _: Context<'_, S>) -> bool {
        metadata.target() == "odm::conflict"
    }

    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != "odm::conflict" {
            return;
        }
        let mut key = Key::default();
        event.record(&mut key);
        let mut counts = self.counts.lock().unwrap();
        *counts
            .entry((key.model, key.operation, key.outcome))
            .or_default() += 1;
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "counters")]
pub struct Counter {
    #[serde(rename = "_id")]
    pub id: String,
    pub value: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "members", optimistic_concurrency)]
pub struct Member {
    #[serde(rename = "_id")]
    pub id: i64,
    #[odm(unique)]
    pub email: String,
    pub plan: String,
    pub city: String,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// The counter layer's counts.
    pub counts: Counts,
    /// How often `update_with_retry` ran its closure beyond one per
    /// increment: its retries.
    pub retries: u64,
    /// The counter's value, and how many increments were made.
    pub value: i64,
    pub increments: i64,
    /// What the stale member's version error said the store changed.
    pub stored_changes: Option<Vec<String>>,
}

/// Some work that meets conflicts, under `counter` (installed by the
/// caller as the subscriber's layer).
pub async fn run(db: &mongodb::Database, counter: &ConflictCounter) -> odm::Result<Outcome> {
    // Eight workers increment one counter: some of their tries conflict
    // and are retried (`retried` events).
    let counters = Counter::model(db);
    counters
        .create(Counter {
            id: "hits".into(),
            value: 0,
        })
        .await?;
    let tries = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let (workers, each) = (8, 5);
    let mut handles = Vec::new();
    for _ in 0..workers {
        let counters = counters.clone();
        let tries = Arc::clone(&tries);
        let dispatch = tracing::dispatcher::get_default(|d| d.clone());
        handles.push(tokio::spawn(
            tracing::instrument::WithSubscriber::with_subscriber(
                async move {
                    for _ in 0..each {
                        counters
                            .update_with_retry("hits", 100, |c: &mut Counter| {
                                tries.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                                c.value += 1;
                                Ok(())
                            })
                            .await?;
                    }
                    Ok::<_, Error>(())
                },
                dispatch,
            ),
        ));
    }
    for handle in handles {
        handle.await.expect("a worker")?;
    }
    let increments = workers * each;
    let value = counters.find_by_id("hits").await?.expect("stored").value;

    // A stale copy of a member is refused (a `stale` event), saying what
    // the other writer changed.
    let members = Member::model(db);
    members.sync_indexes().await?;
    members
        .create(Member {
            id: 1,
            email: "ann@example.com".into(),
            plan: "FREE".into(),
            city: "Oslo".into(),
        })
        .await?;
    let mut fresh = members.find_by_id(1).await?.expect("stored");
    let mut stale = members.find_by_id(1).await?.expect("stored");
    fresh.plan = "PRO".into();
    fresh.save().await?;
    stale.city = "Bergen".into();
    let stored_changes = match stale.save().await {
        Err(Error::Version(e)) => e.stored_changes().map(<[String]>::to_vec),
        other => panic!("the stale copy saved: {other:?}"),
    };
    // Its change does not overlap theirs: rebase and save.
    stale.rebase().await?;
    stale.save().await?;

    // An upsert whose insert a unique index refuses is sent once more (a
    // `resent` event) before the duplicate key is returned.
    let refused = members
        .upsert(doc! { "email": "ann@example.com", "plan": "NONE" })
        .set_on_insert(doc! { "_id": 2_i64, "city": "Oslo" })
        .await;
    assert!(matches!(refused, Err(Error::DuplicateKey(_))));

    Ok(Outcome {
        counts: counter.counts(),
        retries: tries.load(std::sync::atomic::Ordering::SeqCst) - increments as u64,
        value,
        increments,
        stored_changes,
    })
}
