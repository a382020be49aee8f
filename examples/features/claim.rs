//! Several workers poll one queue of pending jobs.
//!
//! "Find a pending job, then mark it running" lets two workers find the
//! same job and both run it. [`Model::claim`] is one conditional
//! `findOneAndUpdate`: the guard (`state: "pending"`) is in the filter, so
//! of the workers that race for a job exactly one gets `Some(job)`; the
//! others get the next job, or `None` when the queue is empty.

use std::collections::HashSet;

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "jobs", index(keys(state = 1), name = "by_state"))]
pub struct Job {
    #[serde(rename = "_id")]
    pub id: i64,
    pub state: String,
    pub worker: Option<i64>,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    pub jobs: usize,
    /// Every job id some worker ran, in the order the workers returned.
    pub runs: Vec<i64>,
    /// Whether a claim of an already running job got `None`.
    pub reclaim_refused: bool,
}

const JOBS: i64 = 20;
const WORKERS: i64 = 4;

/// Claims pending jobs until none is left; returns the ids it ran.
async fn worker(jobs: &Model<Job>, w: i64) -> odm::Result<Vec<i64>> {
    let mut ran = Vec::new();
    while let Some(job) = jobs
        .claim(
            doc! { "state": "pending" },                          // the guard
            doc! { "$set": { "state": "running", "worker": w } }, // the claim
        )
        .sort(doc! { "_id": 1 }) // oldest first
        .await?
    {
        ran.push(job.id); // only this worker got `job`: run it here
    }
    Ok(ran)
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let jobs = Job::model(db);
    jobs.sync_indexes().await?;
    for id in 0..JOBS {
        jobs.create(Job {
            id,
            state: "pending".into(),
            worker: None,
        })
        .await?;
    }

    // Four workers poll the queue at once.
    let tasks: Vec<_> = (0..WORKERS)
        .map(|w| {
            let jobs = jobs.clone();
            tokio::spawn(async move { worker(&jobs, w).await })
        })
        .collect();
    let mut runs = Vec::new();
    for (w, task) in tasks.into_iter().enumerate() {
        let ran = task.await.expect("task")?;
        println!("worker {w} ran {} jobs: {ran:?}", ran.len());
        runs.extend(ran);
    }
    let distinct: HashSet<i64> = runs.iter().copied().collect();
    println!(
        "{JOBS} jobs, {} runs, {} distinct: no job ran twice, none was missed",
        runs.len(),
        distinct.len()
    );

    // A claim whose guard no longer holds matches nothing: `None`.
    let again = jobs
        .claim(
            doc! { "_id": 0, "state": "pending" },
            doc! { "$set": { "state": "running", "worker": 99 } },
        )
        .await?;
    println!("claiming job 0 again: {:?}", again.as_ref().map(|j| j.id));
    Ok(Outcome {
        jobs: JOBS as usize,
        runs,
        reclaim_refused: again.is_none(),
    })
}
