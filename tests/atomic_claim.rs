//! `Model::claim`: many workers, each task claimed exactly once.

use crate::common;

use std::collections::{HashMap, HashSet};

use common::Race;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "tasks",
    optimistic_concurrency,
    index(keys(round = 1, state = 1), name = "queue")
)]
struct Task {
    #[serde(rename = "_id")]
    id: i64,
    round: i64,
    state: String,
    owner: Option<i64>,
}

const WORKERS: i64 = 8;
/// Tasks per round. SecantusDB scans the round's tasks on every claim, so
/// a round costs about the square of this: 40 rounds of 50 make the same
/// 2,000 claims as 10 rounds of 200 in a quarter of the time.
const TASKS: i64 = 50;
const ROUNDS: i64 = 40;

/// 8 workers claim 50 tasks at once, 40 rounds: every task claimed by
/// exactly one worker, none twice, none left.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_claim_every_task_exactly_once() {
    let t = TestDb::new().await;
    let tasks = Task::model(&t.db);
    // A queue is polled through an index on its filter, as in production.
    tasks.sync_indexes().await.unwrap();
    for round in 0..ROUNDS {
        let docs: Vec<_> = (0..TASKS)
            .map(|i| doc! { "_id": round * 1000 + i, "round": round, "state": "pending", "owner": null, "__v": 0 })
            .collect();
        tasks.collection().insert_many(docs).await.unwrap();
        let race = Race::new(WORKERS as usize);
        let workers: Vec<_> = (0..WORKERS)
            .map(|w| {
                let (tasks, race) = (tasks.clone(), race.clone());
                tokio::spawn(race.run(async move {
                    let mut mine = Vec::new();
                    while let Some(task) = tasks
                        .claim(
                            doc! { "round": round, "state": "pending" },
                            doc! { "$set": { "state": "running", "owner": w } },
                        )
                        .await
                        .unwrap()
                    {
                        assert_eq!(task.state, "running");
                        assert_eq!(task.owner, Some(w));
                        assert_eq!(task.version(), Some(1));
                        mine.push(task.id);
                        tokio::task::yield_now().await;
                    }
                    (w, mine)
                }))
            })
            .collect();
        let mut claimed_by: HashMap<i64, i64> = HashMap::new();
        let mut total = 0;
        let mut busy_workers = 0;
        for worker in workers {
            let (w, mine) = worker.await.unwrap();
            total += mine.len();
            busy_workers += usize::from(!mine.is_empty());
            for id in mine {
                assert!(
                    claimed_by.insert(id, w).is_none(),
                    "task {id} claimed twice"
                );
            }
        }
        assert_eq!(total, TASKS as usize);
        let expected: HashSet<i64> = (0..TASKS).map(|i| round * 1000 + i).collect();
        assert_eq!(claimed_by.keys().copied().collect::<HashSet<_>>(), expected);
        assert_eq!(
            tasks
                .count(doc! { "round": round, "state": "pending" })
                .await
                .unwrap(),
            0
        );
        // The stored owner is the worker that got Some.
        for task in tasks.find(doc! { "round": round }).await.unwrap() {
            assert_eq!(task.owner, Some(claimed_by[&task.id]));
            assert_eq!(task.version(), Some(1));
        }
        assert!(
            busy_workers > 1 && race.most() > 1,
            "round {round}: the workers ran concurrently"
        );
        println!("round {round}: {busy_workers} workers claimed tasks");
        // Keep the collection small: SecantusDB scans it on every claim.
        tasks.collection().delete_many(doc! {}).await.unwrap();
    }
    t.finish().await;
}

#[tokio::test]
async fn sort_picks_the_first_and_none_when_nothing_matches() {
    let t = TestDb::new().await;
    let tasks = Task::model(&t.db);
    for id in [3_i64, 1, 2] {
        tasks
            .create(Task {
                id,
                round: 0,
                state: "pending".into(),
                owner: None,
            })
            .await
            .unwrap();
    }
    fn claim(tasks: &Model<Task>, sort: i32) -> odm::Claim<'_, Task> {
        tasks
            .claim(
                doc! { "state": "pending" },
                doc! { "$set": { "state": "running" } },
            )
            .sort(doc! { "_id": sort })
    }
    assert_eq!(claim(&tasks, -1).await.unwrap().unwrap().id, 3);
    assert_eq!(claim(&tasks, 1).await.unwrap().unwrap().id, 1);
    assert_eq!(claim(&tasks, 1).await.unwrap().unwrap().id, 2);
    assert!(claim(&tasks, 1).await.unwrap().is_none());
    t.finish().await;
}

/// A claim bumps the version, so a tracked copy loaded before it cannot
/// overwrite the claim.
#[tokio::test]
async fn a_stale_copy_fails_after_a_claim() {
    let t = TestDb::new().await;
    let tasks = Task::model(&t.db);
    tasks
        .create(Task {
            id: 1,
            round: 0,
            state: "pending".into(),
            owner: None,
        })
        .await
        .unwrap();
    let mut stale = tasks.find_by_id(1_i64).await.unwrap().unwrap();
    let claimed = tasks
        .claim(
            doc! { "_id": 1_i64, "state": "pending" },
            doc! { "$set": { "owner": 7_i64, "state": "running" } },
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.version(), Some(1));
    stale.state = "cancelled".into();
    match stale.save().await {
        Err(Error::Version(e)) => assert_eq!(
            e.to_string(),
            "No matching document found for id \"1\" version 0 modifiedPaths \"state\""
        ),
        other => panic!("expected a version error, got {other:?}"),
    }
    // The caller's own $inc of the version key is kept as written.
    let again = tasks
        .claim(
            doc! { "_id": 1_i64 },
            doc! { "$set": { "state": "done" }, "$inc": { "__v": 5 } },
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.version(), Some(6));
    t.finish().await;
}
