//! 2. Several workers poll one queue of pending tasks.

use std::collections::HashSet;

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{join, pause, timed, Ctx, Measure, Scenario};

pub const SCENARIO: Scenario = Scenario {
    title: "task polling by several workers",
    unit: "double runs",
    per: "jobs",
    naive: "find, then update",
    odm: &["claim"],
};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(
    collection = "jobs",
    index(keys(queue = 1, state = 1), name = "by_queue_state")
)]
pub struct Job {
    #[serde(rename = "_id")]
    pub id: i64,
    pub queue: String,
    pub state: String,
    pub worker: Option<i64>,
}

const WORKERS: i64 = 4;

pub async fn round(ctx: &Ctx, round: usize) -> odm::Result<Vec<Measure>> {
    let jobs_per_round = 3 * ctx.size.n as i64;
    let jobs = Job::model(&ctx.db);
    jobs.sync_indexes().await?;
    let mut measures = Vec::new();
    for side in ["naive", "odm"] {
        let queue = format!("{side}-{round}");
        let first = (round as i64 * 2 + i64::from(side == "odm")) * 1000;
        for id in first..first + jobs_per_round {
            jobs.create(Job {
                id,
                queue: queue.clone(),
                state: "pending".into(),
                worker: None,
            })
            .await?;
        }
        let measure = timed(async {
            let workers = (0..WORKERS)
                .map(|w| {
                    let (jobs, queue) = (jobs.clone(), queue.clone());
                    tokio::spawn(async move {
                        if side == "naive" {
                            naive_worker(&jobs, &queue, w).await
                        } else {
                            odm_worker(&jobs, &queue, w).await
                        }
                    })
                })
                .collect();
            let runs: Vec<i64> = join(workers).await?.into_iter().flatten().collect();
            let distinct: HashSet<i64> = runs.iter().copied().collect();
            // A job run twice, or never, is wrong.
            let missed = jobs_per_round as u64 - distinct.len() as u64;
            let doubles = (runs.len() - distinct.len()) as u64;
            Ok((doubles + missed, jobs_per_round as u64))
        })
        .await?;
        measures.push(measure);
    }
    Ok(measures)
}

/// Finds a pending job, marks it running by its id, runs it.
async fn naive_worker(jobs: &Model<Job>, queue: &str, w: i64) -> odm::Result<Vec<i64>> {
    let mut ran = Vec::new();
    while let Some(mut job) = jobs
        .find_one(doc! { "queue": queue, "state": "pending" })
        .await?
    {
        pause(ran.len()).await;
        job.state = "running".into();
        job.worker = Some(w);
        job.save().await?;
        ran.push(job.id);
    }
    Ok(ran)
}

/// Claims a pending job (the state is in the filter), runs it.
async fn odm_worker(jobs: &Model<Job>, queue: &str, w: i64) -> odm::Result<Vec<i64>> {
    let mut ran = Vec::new();
    while let Some(job) = jobs
        .claim(
            doc! { "queue": queue, "state": "pending" },
            doc! { "$set": { "state": "running", "worker": w } },
        )
        .await?
    {
        ran.push(job.id);
    }
    Ok(ran)
}
