//! `odm::lock::Leases` against the server: the cost of an uncontended
//! acquire + release, and the throughput of 20 contenders for one key.
//!
//! `cargo bench --bench locks` runs against the local SecantusDB server (or
//! `MONGODB_URI`). Every command the client sends to the bench's database
//! is counted by a command monitor (`CommandStartedEvent`).
//!
//! - Uncontended: `ODM_LOCKS_RUNS` (default 5) runs of `ODM_LOCKS_CYCLES`
//!   (default 200) cycles of `acquire` + `release` of one key; per cycle:
//!   round trips (asserted: 2, `findAndModify` + `update`) and wall time
//!   (median run). Each run alternates with a run of as many plain
//!   `update_one`s on the same server (asserted: 1 round trip each), the
//!   time of one round trip for comparison.
//! - Contended: 20 tasks acquire one key until `ODM_LOCKS_ACQUISITIONS`
//!   (default 500) grants are made, each holding it across one yield.
//!   Prints acquisitions per second and round trips per grant; asserts 0
//!   overlapping critical sections and tokens strictly increasing, one per
//!   grant.
//!
//! `ODM_BENCH_QUICK=1`: one run of 3 cycles and 20 contended grants, with
//! every assertion, in a few seconds (what CI runs).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::env_usize;
use mongodb::bson::{doc, Document};
use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;
use mongodb::options::ClientOptions;
use mongodb::{Client, Database};
use odm::lock::Leases;
use odm_testing::TestDb;

/// Long enough that no lease expires during the bench: every hand-over is
/// a release.
const TTL: Duration = Duration::from_secs(60);
const CONTENDERS: usize = 20;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    common::harness::median(&xs)
}

/// The names of the commands sent to one database, in order.
#[derive(Clone, Default)]
struct Sent(Arc<Mutex<Vec<String>>>);

impl Sent {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// A client whose every command to `db` is recorded in the returned `Sent`.
async fn monitored(db: &str) -> (Client, Sent) {
    let mut options = ClientOptions::parse(odm_testing::uri()).await.unwrap();
    let sent = Sent::default();
    let (seen, db) = (sent.clone(), db.to_string());
    options.command_event_handler = Some(EventHandler::callback(move |event: CommandEvent| {
        if let CommandEvent::Started(e) = event {
            if e.db == db {
                seen.0.lock().unwrap().push(e.command_name);
            }
        }
    }));
    (Client::with_options(options).unwrap(), sent)
}

/// Median wall ns per op over the uncontended runs.
struct Uncontended {
    cycle: f64,
    acquire: f64,
    release: f64,
    update_one: f64,
}

/// Uncontended: median wall ns per acquire + release cycle (and of each
/// half) and per plain `update_one`, runs alternating; asserts the round
/// trips of each.
async fn uncontended(db: &Database, sent: &Sent, runs: usize, cycles: usize) -> Uncontended {
    let leases = Leases::new(db, "locks");
    let plain = db.collection::<Document>("plain");
    plain.insert_one(doc! { "_id": 1, "n": 0 }).await.unwrap();
    // Warm-up, not counted: the first acquisition creates the lease document.
    leases
        .acquire("job", TTL)
        .await
        .unwrap()
        .release()
        .await
        .unwrap();
    plain
        .update_one(doc! { "_id": 1 }, doc! { "$inc": { "n": 1 } })
        .await
        .unwrap();
    sent.take();

    let (mut cycle_ns, mut plain_ns) = (Vec::new(), Vec::new());
    let (mut acquire_ns, mut release_ns) = (Vec::new(), Vec::new());
    let mut last_token = 1;
    for _ in 0..runs {
        let (mut acquiring, mut releasing) = (Duration::ZERO, Duration::ZERO);
        let start = Instant::now();
        for i in 0..cycles {
            let sending = Instant::now();
            let lease = leases.acquire("job", TTL).await.unwrap();
            acquiring += sending.elapsed();
            assert_eq!(lease.token(), last_token + 1, "one grant per acquire");
            last_token = lease.token();
            let sending = Instant::now();
            lease.release().await.unwrap();
            releasing += sending.elapsed();
            if i == 0 {
                assert_eq!(
                    sent.take(),
                    ["findAndModify", "update"],
                    "a cycle's commands"
                );
            }
        }
        cycle_ns.push(start.elapsed().as_nanos() as f64 / cycles as f64);
        acquire_ns.push(acquiring.as_nanos() as f64 / cycles as f64);
        release_ns.push(releasing.as_nanos() as f64 / cycles as f64);
        let trips = sent.take().len() + 2;
        assert_eq!(trips, 2 * cycles, "round trips of {cycles} cycles");

        let start = Instant::now();
        for _ in 0..cycles {
            let done = plain
                .update_one(doc! { "_id": 1 }, doc! { "$inc": { "n": 1 } })
                .await
                .unwrap();
            assert_eq!(done.modified_count, 1);
        }
        plain_ns.push(start.elapsed().as_nanos() as f64 / cycles as f64);
        assert_eq!(sent.take().len(), cycles, "one round trip per update_one");
    }
    Uncontended {
        cycle: median(cycle_ns),
        acquire: median(acquire_ns),
        release: median(release_ns),
        update_one: median(plain_ns),
    }
}

/// What the contended run saw.
struct Contended {
    grants: usize,
    elapsed: Duration,
    commands: usize,
}

/// 20 tasks contend for one key until `wanted` grants are made (a few more:
/// tasks already waiting when the count is reached still get theirs).
async fn contended(db: &Database, sent: &Sent, wanted: usize) -> Contended {
    let leases = Leases::new(db, "contended");
    sent.take();
    let inside = Arc::new(AtomicUsize::new(0));
    let overlaps = Arc::new(AtomicUsize::new(0));
    // Tokens in grant order: pushed inside the critical section.
    let tokens = Arc::new(Mutex::new(Vec::<i64>::new()));
    let start = Instant::now();
    let tasks: Vec<_> = (0..CONTENDERS)
        .map(|_| {
            let (leases, inside, overlaps, tokens) = (
                leases.clone(),
                inside.clone(),
                overlaps.clone(),
                tokens.clone(),
            );
            tokio::spawn(async move {
                while tokens.lock().unwrap().len() < wanted {
                    let lease = leases.acquire("report", TTL).await.unwrap();
                    if inside.fetch_add(1, Ordering::SeqCst) != 0 {
                        overlaps.fetch_add(1, Ordering::SeqCst);
                    }
                    tokens.lock().unwrap().push(lease.token());
                    tokio::task::yield_now().await;
                    inside.fetch_sub(1, Ordering::SeqCst);
                    lease.release().await.unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let elapsed = start.elapsed();
    let tokens = tokens.lock().unwrap().clone();
    assert_eq!(overlaps.load(Ordering::SeqCst), 0, "overlapping holders");
    assert!(
        tokens.windows(2).all(|w| w[0] < w[1]),
        "tokens strictly increase in grant order: {tokens:?}"
    );
    assert_eq!(tokens.first(), Some(&1), "the first grant's token");
    assert_eq!(
        *tokens.last().unwrap() as usize,
        tokens.len(),
        "one token per grant"
    );
    assert!(tokens.len() >= wanted && tokens.len() < wanted + CONTENDERS);
    Contended {
        grants: tokens.len(),
        elapsed,
        commands: sent.take().len(),
    }
}

#[tokio::main]
async fn main() {
    let quick = common::quick();
    let runs = env_usize("ODM_LOCKS_RUNS", if quick { 1 } else { 5 });
    let cycles = env_usize("ODM_LOCKS_CYCLES", if quick { 3 } else { 200 });
    let wanted = env_usize("ODM_LOCKS_ACQUISITIONS", if quick { 20 } else { 500 });

    let started = Instant::now();
    let t = TestDb::new().await;
    let (client, sent) = monitored(t.db.name()).await;
    let db = client.database(t.db.name());

    let u = uncontended(&db, &sent, runs, cycles).await;
    println!(
        "uncontended acquire + release: 2 round trips, {:.1} us/cycle (acquire {:.1}, release \
         {:.1}; median of {runs} runs of {cycles}); plain update_one: 1 round trip, {:.1} us; \
         cycle / update_one {:.2}",
        u.cycle / 1e3,
        u.acquire / 1e3,
        u.release / 1e3,
        u.update_one / 1e3,
        u.cycle / u.update_one
    );
    println!("LOCKS uncontended round_trips 2");
    println!("LOCKS uncontended cycle_ns {:.0}", u.cycle);
    println!("LOCKS uncontended acquire_ns {:.0}", u.acquire);
    println!("LOCKS uncontended release_ns {:.0}", u.release);
    println!("LOCKS update_one_ns {:.0}", u.update_one);

    let c = contended(&db, &sent, wanted).await;
    let per_s = c.grants as f64 / c.elapsed.as_secs_f64();
    // Each grant: one release; every other command is an acquisition attempt.
    let attempts = (c.commands - c.grants) as f64 / c.grants as f64;
    println!(
        "{CONTENDERS} contenders: {} grants in {:.2} s, {per_s:.1} acquisitions/s, \
         {:.2} round trips per grant ({attempts:.2} attempts + 1 release), 0 overlaps, \
         tokens 1..={} strictly increasing",
        c.grants,
        c.elapsed.as_secs_f64(),
        c.commands as f64 / c.grants as f64,
        c.grants
    );
    println!("LOCKS contended acquisitions_per_s {per_s:.1}");
    println!("LOCKS contended attempts_per_grant {attempts:.2}");
    println!("LOCKS contended overlaps 0");

    client.shutdown().await;
    t.finish().await;
    eprintln!("locks bench took {:.1} s", started.elapsed().as_secs_f64());
}
