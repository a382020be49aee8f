//! Real concurrency: 50 tasks, each with its own copy of one document
//! loaded at the same version, save at once under optimistic_concurrency:
//! exactly one wins, 49 get `Error::Version`, over 20 rounds.

use crate::common;

use std::sync::Arc;

use common::*;
use odm::prelude::*;
use odm_testing::TestDb;
use tokio::sync::Barrier;

const TASKS: usize = 50;
const ROUNDS: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_stale_copies_exactly_one_wins() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    for round in 0..ROUNDS {
        let u = user();
        users.create(u.clone()).await.unwrap();
        let mut copies = Vec::with_capacity(TASKS);
        for _ in 0..TASKS {
            copies.push(users.find_by_id(u.id).await.unwrap().unwrap());
        }
        let barrier = Arc::new(Barrier::new(TASKS));
        let handles: Vec<_> = copies
            .into_iter()
            .enumerate()
            .map(|(i, mut copy)| {
                let barrier = barrier.clone();
                tokio::spawn(async move {
                    copy.status = format!("writer-{i}");
                    barrier.wait().await;
                    (i, copy.save().await)
                })
            })
            .collect();
        let mut winners = Vec::new();
        let mut version_errors = 0;
        for h in handles {
            match h.await.unwrap() {
                (i, Ok(())) => winners.push(i),
                (_, Err(Error::Version(e))) => {
                    assert_eq!(e.version, 0);
                    assert_eq!(e.modified_paths, ["status"]);
                    version_errors += 1;
                }
                (_, Err(other)) => panic!("round {round}: unexpected error {other}"),
            }
        }
        assert_eq!(winners.len(), 1, "round {round}: exactly one winner");
        assert_eq!(version_errors, TASKS - 1, "round {round}");
        let stored = stored(&users, u.id).await;
        assert_eq!(
            stored.get_str("status").unwrap(),
            format!("writer-{}", winners[0])
        );
        assert_eq!(stored.get_i32("__v").unwrap(), 1);
    }
    t.finish().await;
}

/// Default mode: concurrent appends from stale copies never lose an element.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_pushes_lose_nothing() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    for round in 0..5 {
        let mut p = post();
        p.numbers = vec![];
        posts.create(p.clone()).await.unwrap();
        let mut copies = Vec::with_capacity(TASKS);
        for _ in 0..TASKS {
            copies.push(posts.find_by_id(p.id).await.unwrap().unwrap());
        }
        let barrier = Arc::new(Barrier::new(TASKS));
        let handles: Vec<_> = copies
            .into_iter()
            .enumerate()
            .map(|(i, mut copy)| {
                let barrier = barrier.clone();
                tokio::spawn(async move {
                    copy.numbers.push(i as i32);
                    barrier.wait().await;
                    copy.save().await
                })
            })
            .collect();
        for h in handles {
            h.await.unwrap().unwrap();
        }
        let stored = stored(&posts, p.id).await;
        let mut numbers: Vec<i32> = stored
            .get_array("numbers")
            .unwrap()
            .iter()
            .map(|n| n.as_i32().unwrap())
            .collect();
        numbers.sort();
        assert_eq!(
            numbers,
            (0..TASKS as i32).collect::<Vec<_>>(),
            "round {round}"
        );
        assert_eq!(stored.get_i32("__v").unwrap(), TASKS as i32);
    }
    t.finish().await;
}
