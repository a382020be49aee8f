//! Counters incremented by many tasks at once.
//!
//! "Load, add one, save" loses updates: two tasks load 7, both save 8.
//! [`Model::update_with_retry`] loads the document, applies the closure,
//! and saves with a version check; when another task saved first it loads
//! the fresh copy and applies the closure again (up to the given number of
//! tries). The closure must derive the change from the value it gets
//! (`value += 1`), since it may run more than once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "counters")]
pub struct Counter {
    #[serde(rename = "_id")]
    pub id: String,
    pub value: i64,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    pub increments: i64,
    pub value: i64,
    /// How many times the closures ran: increments plus retries.
    pub tries: usize,
}

const TASKS: i64 = 5;
const INCREMENTS_PER_TASK: i64 = 10;

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let counters = Counter::model(db);
    let id = "page-views".to_string();
    counters
        .create(Counter {
            id: id.clone(),
            value: 0,
        })
        .await?;

    // Five tasks, each adding one ten times, all at once.
    let tries = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..TASKS)
        .map(|_| {
            let (counters, id, tries) = (counters.clone(), id.clone(), tries.clone());
            tokio::spawn(async move {
                for _ in 0..INCREMENTS_PER_TASK {
                    counters
                        .update_with_retry(id.as_str(), 100, |c: &mut Counter| {
                            tries.fetch_add(1, Ordering::SeqCst);
                            c.value += 1;
                            Ok(())
                        })
                        .await?;
                }
                Ok::<_, Error>(())
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("task")?;
    }

    let increments = TASKS * INCREMENTS_PER_TASK;
    let counter = counters.find_by_id(id.as_str()).await?.expect("stored");
    let tries = tries.load(Ordering::SeqCst);
    println!(
        "{increments} increments by {TASKS} tasks at once: value {}, version {:?}",
        counter.value,
        counter.version()
    );
    println!(
        "the closures ran {tries} times: {} retries after a version conflict",
        tries - increments as usize
    );
    Ok(Outcome {
        increments,
        value: counter.value,
        tries,
    })
}
