//! Soak: 32 tasks for 30 s (`ODM_SOAK_SECS` overrides) against one server,
//! mixing `update_with_retry` increments, job `claim`s, `upsert`s and
//! lease-guarded (fenced) saves on a small key space (8 keys), every
//! outcome counted:
//!
//! - no lost update: the increments and fenced saves the tasks counted as
//!   done equal the stored sums, key by key;
//! - no double claim: every job enqueued is claimed, and removed as done
//!   by its claimer, exactly once;
//! - no duplicate: the upserts of a key leave one document, inserted once.
//!
//! Bounded in time and in operations per task; loopback only (the local
//! server, or `MONGODB_URI`).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use odm::lock::Leases;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use tokio::sync::Barrier;

const TASKS: usize = 32;
const KEYS: usize = 8;
/// A task stops after this many operations even if time is left.
const MAX_OPS_PER_TASK: usize = 50_000;

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "soak_counters")]
struct Counter {
    #[serde(rename = "_id")]
    id: String,
    value: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "soak_fenced")]
struct Fenced {
    #[serde(rename = "_id")]
    id: String,
    value: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "soak_jobs", index(keys(state = 1), name = "by_state"))]
struct Job {
    #[serde(rename = "_id")]
    id: i64,
    state: String,
    worker: Option<i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "soak_visitors")]
struct Visitor {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(unique)]
    key: String,
    first: i64,
    last: i64,
}

/// What one task did.
#[derive(Debug, Default)]
struct Counts {
    increments: BTreeMap<String, i64>,
    fenced: BTreeMap<String, i64>,
    enqueued: Vec<i64>,
    claimed: Vec<i64>,
    upserts: usize,
    /// Upserts that inserted (their `first` is this upsert's id).
    inserted: Vec<String>,
    /// Leases not had within the wait, fenced saves refused, and releases
    /// after expiry: no write lost, counted to show the contention.
    lease_timeouts: usize,
    fence_refusals: usize,
    ops: usize,
}

struct Models {
    counters: Model<Counter>,
    fenced: Model<Fenced>,
    jobs: Model<Job>,
    visitors: Model<Visitor>,
    leases: Leases,
}

fn key(n: u64) -> String {
    format!("k{}", n % KEYS as u64)
}

/// xorshift64*, one per task.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

async fn task(m: Arc<Models>, t: usize, barrier: Arc<Barrier>, until: Instant) -> Counts {
    let mut c = Counts::default();
    let mut rng = 0x9E37_79B9_7F4A_7C15 ^ (t as u64 + 1);
    barrier.wait().await;
    while Instant::now() < until && c.ops < MAX_OPS_PER_TASK {
        c.ops += 1;
        let r = next(&mut rng);
        let k = key(r >> 8);
        match r % 100 {
            0..=29 => {
                m.counters
                    .update_with_retry(k.as_str(), 10_000, |v: &mut Counter| {
                        v.value += 1;
                        Ok(())
                    })
                    .await
                    .expect("update_with_retry");
                *c.increments.entry(k).or_default() += 1;
            }
            30..=44 => {
                let id = (t * MAX_OPS_PER_TASK + c.ops) as i64;
                m.jobs
                    .create(Job {
                        id,
                        state: "pending".into(),
                        worker: None,
                    })
                    .await
                    .expect("enqueue");
                c.enqueued.push(id);
            }
            45..=64 => claim_one(&m, t, &mut c).await,
            65..=79 => {
                let id = (t * MAX_OPS_PER_TASK + c.ops) as i64;
                let visitor = m
                    .visitors
                    .upsert(doc! { "key": &k })
                    .set(doc! { "last": id })
                    .set_on_insert(doc! { "_id": id, "first": id })
                    .await
                    .expect("upsert");
                assert_eq!(visitor.key, k);
                c.upserts += 1;
                if visitor.first == id {
                    c.inserted.push(k);
                }
            }
            _ => fenced_increment(&m, k, &mut c).await,
        }
    }
    c
}

/// Claims one pending job, if any, and removes it as done, as its claimer.
async fn claim_one(m: &Models, t: usize, c: &mut Counts) {
    let claimed = m
        .jobs
        .claim(
            doc! { "state": "pending" },
            doc! { "$set": { "state": "running", "worker": t as i64 } },
        )
        .await
        .expect("claim");
    if let Some(job) = claimed {
        assert_eq!(
            (job.state.as_str(), job.worker),
            ("running", Some(t as i64))
        );
        // Done: the claimer removes its job, as a queue does (SecantusDB
        // scans the jobs on every claim, so the queue stays short).
        let done = m
            .jobs
            .collection()
            .delete_one(doc! { "_id": job.id, "state": "running", "worker": t as i64 })
            .await
            .expect("mark done");
        assert_eq!(done.deleted_count, 1, "job {} is no longer ours", job.id);
        c.claimed.push(job.id);
    }
}

/// Under the key's lease: load, add one, save fenced by the lease.
async fn fenced_increment(m: &Models, k: String, c: &mut Counts) {
    let lease = match m
        .leases
        .acquire_timeout(k.as_str(), Duration::from_secs(10), Duration::from_secs(2))
        .await
    {
        Ok(lease) => lease,
        Err(Error::LeaseTimeout(_)) => {
            c.lease_timeouts += 1;
            return;
        }
        Err(e) => panic!("acquire: {e}"),
    };
    let mut doc = m.fenced.find_by_id(k.as_str()).await.unwrap().unwrap();
    doc.value += 1;
    match doc.save().fenced(&lease).await {
        Ok(()) => *c.fenced.entry(k).or_default() += 1,
        Err(Error::Fenced(_)) => c.fence_refusals += 1,
        Err(e) => panic!("fenced save: {e}"),
    }
    match lease.release().await {
        Ok(()) | Err(Error::LeaseLost(_)) => {}
        Err(e) => panic!("release: {e}"),
    }
}

fn soak_secs() -> u64 {
    std::env::var("ODM_SOAK_SECS")
        .ok()
        .map(|s| s.parse().expect("ODM_SOAK_SECS is a number of seconds"))
        .unwrap_or(30)
}

/// The stored `value` of each key.
async fn stored_values<T: odm::Document>(model: &Model<T>) -> BTreeMap<String, i64> {
    let mut values = BTreeMap::new();
    let mut cursor = model.collection().find(doc! {}).await.unwrap();
    while cursor.advance().await.unwrap() {
        let d = cursor.deserialize_current().unwrap();
        values.insert(
            d.get_str("_id").unwrap().to_string(),
            d.get_i64("value").unwrap(),
        );
    }
    values
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_tasks_lose_no_update_claim_no_job_twice_and_duplicate_no_upsert() {
    let t = TestDb::new().await;
    let m = Arc::new(Models {
        counters: Counter::model(&t.db),
        fenced: Fenced::model(&t.db),
        jobs: Job::model(&t.db),
        visitors: Visitor::model(&t.db),
        leases: Leases::new(&t.db, "soak_leases"),
    });
    m.jobs.sync_indexes().await.unwrap();
    m.visitors.sync_indexes().await.unwrap();
    for k in 0..KEYS as u64 {
        m.counters
            .create(Counter {
                id: key(k),
                value: 0,
            })
            .await
            .unwrap();
        m.fenced
            .create(Fenced {
                id: key(k),
                value: 0,
            })
            .await
            .unwrap();
    }

    let secs = soak_secs();
    let barrier = Arc::new(Barrier::new(TASKS));
    let until = Instant::now() + Duration::from_secs(secs);
    let started = Instant::now();
    let handles: Vec<_> = (0..TASKS)
        .map(|i| tokio::spawn(task(m.clone(), i, barrier.clone(), until)))
        .collect();
    let mut all = Counts::default();
    for handle in handles {
        let c = handle.await.expect("a task panicked");
        for (k, n) in c.increments {
            *all.increments.entry(k).or_default() += n;
        }
        for (k, n) in c.fenced {
            *all.fenced.entry(k).or_default() += n;
        }
        all.enqueued.extend(c.enqueued);
        all.claimed.extend(c.claimed);
        all.upserts += c.upserts;
        all.inserted.extend(c.inserted);
        all.lease_timeouts += c.lease_timeouts;
        all.fence_refusals += c.fence_refusals;
        all.ops += c.ops;
    }
    let elapsed = started.elapsed();
    // The jobs still pending after the run: claimed by one last worker.
    let mut drained = Counts::default();
    loop {
        let before = drained.claimed.len();
        claim_one(&m, TASKS, &mut drained).await;
        if drained.claimed.len() == before {
            break;
        }
    }

    // No lost update.
    let counters = stored_values(&m.counters).await;
    let fenced = stored_values(&m.fenced).await;
    for k in 0..KEYS as u64 {
        let k = key(k);
        let counted = all.increments.get(&k).copied().unwrap_or(0);
        assert_eq!(counters[&k], counted, "increments of {k}");
        let counted = all.fenced.get(&k).copied().unwrap_or(0);
        assert_eq!(fenced[&k], counted, "fenced saves of {k}");
    }
    // No double claim, no job missed.
    let claimed: Vec<i64> = all
        .claimed
        .iter()
        .chain(&drained.claimed)
        .copied()
        .collect();
    let distinct: HashSet<i64> = claimed.iter().copied().collect();
    assert_eq!(distinct.len(), claimed.len(), "a job was claimed twice");
    let enqueued: HashSet<i64> = all.enqueued.iter().copied().collect();
    assert_eq!(distinct, enqueued, "claimed jobs differ from enqueued ones");
    // Every job was removed by its claimer: none pending or running left.
    assert_eq!(m.jobs.count(doc! {}).await.unwrap(), 0);
    // No duplicate: one visitor per key that was upserted, inserted once.
    let mut inserted = all.inserted.clone();
    inserted.sort();
    let keys: Vec<String> = {
        let mut keys: Vec<String> = inserted.clone();
        keys.dedup();
        keys
    };
    assert_eq!(inserted, keys, "a key was inserted twice");
    assert_eq!(
        m.visitors.count(doc! {}).await.unwrap(),
        keys.len() as u64,
        "one document per upserted key"
    );

    let increments: i64 = all.increments.values().sum();
    let fenced_saves: i64 = all.fenced.values().sum();
    println!(
        "soak: {TASKS} tasks, {KEYS} keys, {:.1} s, {} operations: {increments} increments, \
         {fenced_saves} fenced saves ({} lease waits timed out, {} fenced saves refused), \
         {} jobs enqueued and claimed once ({} after the run), {} upserts into {} documents; \
         0 lost updates, 0 double claims, 0 duplicates",
        elapsed.as_secs_f64(),
        all.ops,
        all.lease_timeouts,
        all.fence_refusals,
        enqueued.len(),
        drained.claimed.len(),
        all.upserts,
        keys.len(),
    );
    assert!(increments > 0 && fenced_saves > 0 && !claimed.is_empty() && all.upserts > 0);
    t.finish().await;
}
