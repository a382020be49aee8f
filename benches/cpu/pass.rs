//! One pass of a `CPU` row: rounds of blocks, each side's block in a task
//! of its own (where a service's handler runs), the sides taking turns
//! going first. Through the monitored client, the pass also records each
//! round trip's commands and asserts that both sides sent the same.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mongodb::Database;
use odm::bson::{Bson, Document as BsonDocument};

use super::ops::{Driver, Kind, Odm, Shape};
use super::usage::process_cpu;
use super::verify::{self, Recorder};
use super::{Plan, Row};
use crate::common::Comment;

/// Where and how much a pass runs.
pub struct Pass<'a> {
    pub odm: &'a Database,
    pub drv: &'a Database,
    /// The monitored client's recorder: the commands are compared.
    pub recorder: Option<&'a Recorder>,
    pub rounds: usize,
    /// Round trips per side and round.
    pub ops: usize,
    /// An untimed round first.
    pub warm_up: bool,
    /// Which sides run (odm, driver).
    pub sides: (bool, bool),
}

/// A counter value no other round trip of the run used.
fn next_n() -> i32 {
    use std::sync::atomic::{AtomicI32, Ordering};
    static N: AtomicI32 = AtomicI32::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

/// What one block measured: CPU and wall time of its timed round trips,
/// and their commands when recorded.
struct Block {
    cpu: Duration,
    wall: Duration,
    sent: Vec<BsonDocument>,
}

impl Block {
    fn new() -> Block {
        Block {
            cpu: Duration::ZERO,
            wall: Duration::ZERO,
            sent: Vec::new(),
        }
    }

    /// Starts timing one round trip.
    fn start(&self, recorder: Option<&Recorder>) -> (Duration, Instant) {
        match recorder {
            Some(r) => drop(r.take()),
            None => timed_starts(),
        }
        (process_cpu(), Instant::now())
    }

    /// Ends timing one round trip started at `at`.
    fn stop(&mut self, at: (Duration, Instant), recorder: Option<&Recorder>) {
        if recorder.is_none() {
            timed_ends();
        }
        self.wall += at.1.elapsed();
        self.cpu += process_cpu().saturating_sub(at.0);
        if let Some(r) = recorder {
            self.sent.extend(r.take());
        }
    }
}

/// Marks where a timed round trip starts and ends, for counting its
/// instructions alone: `valgrind --tool=callgrind
/// --dump-before='e2e::cpu::pass::timed_starts'
/// --dump-before='e2e::cpu::pass::timed_ends'` on the current-thread
/// runtime writes one profile per interval; those dumped before
/// `timed_ends` hold the round trips of the timed pass (every task polled
/// meanwhile included: on that runtime all run on this thread).
#[inline(never)]
fn timed_starts() {
    // Distinct bodies, so the linker does not fold the two into one.
    std::hint::black_box(1u8);
}

/// See [`timed_starts`].
#[inline(never)]
fn timed_ends() {
    std::hint::black_box(2u8);
}

async fn odm_block<T: Shape>(
    mut side: Odm<T>,
    kind: Kind,
    ns: Vec<i32>,
    pool: Arc<Vec<Comment>>,
    first: Bson,
    recorder: Option<Recorder>,
) -> (Odm<T>, Block) {
    let mut block = Block::new();
    for n in ns {
        side.prepare(kind, n);
        let at = block.start(recorder.as_ref());
        side.op(kind, n, &pool, &first).await;
        block.stop(at, recorder.as_ref());
        side.restore(kind).await;
    }
    (side, block)
}

async fn driver_block<T: Shape>(
    mut side: Driver<T>,
    kind: Kind,
    ns: Vec<i32>,
    pool: Arc<Vec<Comment>>,
    first: Bson,
    recorder: Option<Recorder>,
) -> (Driver<T>, Block) {
    let mut block = Block::new();
    for n in ns {
        let at = block.start(recorder.as_ref());
        side.op(kind, n, &pool, &first).await;
        block.stop(at, recorder.as_ref());
        side.restore(kind).await;
    }
    (side, block)
}

/// Runs `pass` of `kind` and returns its row (with the commands of one
/// round trip in brief when they were recorded).
pub async fn run<T: Shape>(pass: &Pass<'_>, plan: &Plan, kind: Kind, first: &Bson) -> Row {
    let count = plan.docs;
    let mut odm = Some(Odm::<T>::load(pass.odm, kind, first, count).await);
    let mut drv = Some(Driver::<T>::load(pass.drv, kind, first, count).await);
    let mut row = Row {
        flavor: plan.flavor,
        shape: plan.shape.clone(),
        kind,
        ops: pass.rounds * pass.ops,
        odm: Default::default(),
        driver: Default::default(),
        rounds: Vec::new(),
        commands: String::new(),
    };
    let names = [pass.odm.name(), pass.drv.name()];
    for round in usize::from(!pass.warm_up)..=pass.rounds {
        let ns: Vec<i32> = (0..pass.ops).map(|_| next_n()).collect();
        let (mut of_odm, mut of_drv) = (Block::new(), Block::new());
        for step in 0..2 {
            let pool = Arc::clone(&plan.pool);
            let recorder = pass.recorder.cloned();
            let odm_turn = (round + step) % 2 == 0;
            if odm_turn && pass.sides.0 {
                let block = odm_block(
                    odm.take().unwrap(),
                    kind,
                    ns.clone(),
                    pool,
                    first.clone(),
                    recorder,
                );
                let (side, block) = tokio::spawn(block).await.unwrap();
                (odm, of_odm) = (Some(side), block);
            } else if !odm_turn && pass.sides.1 {
                let block = driver_block(
                    drv.take().unwrap(),
                    kind,
                    ns.clone(),
                    pool,
                    first.clone(),
                    recorder,
                );
                let (side, block) = tokio::spawn(block).await.unwrap();
                (drv, of_drv) = (Some(side), block);
            }
        }
        if pass.recorder.is_some() {
            let sent = verify::normalized(of_odm.sent, &names);
            let by_hand = verify::normalized(of_drv.sent, &names);
            assert!(!sent.is_empty(), "{} sent a command", kind.name());
            assert_eq!(
                sent,
                by_hand,
                "{} {}: odm and the driver sent the same commands",
                plan.shape,
                kind.name()
            );
            row.commands = brief(&sent, pass.ops);
        }
        if round == 0 {
            continue;
        }
        row.odm.0 += of_odm.cpu;
        row.odm.1 += of_odm.wall;
        row.driver.0 += of_drv.cpu;
        row.driver.1 += of_drv.wall;
        row.rounds
            .push(of_odm.cpu.as_secs_f64() / of_drv.cpu.as_secs_f64());
    }
    row.rounds.sort_by(f64::total_cmp);
    odm.unwrap().check().await;
    row
}

/// The commands of one round trip, counted by name: `update x1`.
fn brief(sent: &[BsonDocument], round_trips: usize) -> String {
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for c in sent {
        let name = verify::name(c);
        match counted.iter_mut().find(|(n, _)| *n == name) {
            Some((_, k)) => *k += 1,
            None => counted.push((name, 1)),
        }
    }
    counted
        .iter()
        .map(|(name, k)| match k % round_trips {
            0 => format!("{name} x{}", k / round_trips),
            _ => format!("{name} x{k}/{round_trips}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
