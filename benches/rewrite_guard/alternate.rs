//! The end-to-end rows of `benches/rewrite_guard.rs`: the sides of a row
//! (`save()`, and the same write sent by the driver) alternated call by
//! call, each side first in turn, each timed by the wall clock and by this
//! process's CPU time (`getrusage`: the server is another process).

use std::time::{Duration, Instant};

use odm::prelude::*;

use super::{edit, env_usize, rewrite, usage, Post};

/// What each call of an end-to-end row changes in its copy.
pub enum Change {
    /// A reverse of the array (a whole-array `$set`).
    Rewrite(&'static str),
    /// An in-place edit of the elements (a comment's text, or a tag).
    Edit(&'static str, Vec<usize>),
}

impl Change {
    /// The change to `p`, as its `n`th (`n` new on every call).
    fn apply(&self, p: &mut Post, n: usize) {
        match self {
            Change::Rewrite(field) => rewrite(p, field),
            Change::Edit(field, at) => edit(p, field, at, n),
        }
    }
}

/// One side of an end-to-end row, on a document of its own.
pub enum Side {
    /// `save()` of the change on a tracked copy.
    Save(Doc<Post>),
    /// The `update_one` that `changes()` builds for the change, sent by the
    /// driver, with the guard term taken out unless `true`. Only the
    /// update is timed; a reload after each keeps the copy's loaded
    /// element what is stored.
    Update(Doc<Post>, bool),
    /// The change sent by the driver as a user would write it without the
    /// guard: `$set` of the whole array, `$inc` of the version.
    Bare { value: Post, version: i64 },
}

/// One call's wall time and this process's CPU time.
struct Timed(Instant, Duration);

impl Timed {
    fn start() -> Timed {
        Timed(Instant::now(), usage::process_cpu())
    }

    fn stop(self) -> (Duration, Duration) {
        let cpu = usage::process_cpu().saturating_sub(self.1);
        (self.0.elapsed(), cpu)
    }
}

impl Side {
    /// One call: the change (its `n`th value) written; its timed part.
    async fn call(
        &mut self,
        model: &Model<Post>,
        change: &Change,
        n: usize,
    ) -> (Duration, Duration) {
        match self {
            Side::Save(doc) => {
                change.apply(doc, n);
                let timed = Timed::start();
                doc.save().await.unwrap();
                timed.stop()
            }
            Side::Update(doc, guarded) => {
                change.apply(doc, n);
                let (mut filter, update) = doc.changes().unwrap();
                if !*guarded {
                    assert!(filter.remove("$expr").is_some(), "a guarded edit");
                }
                let timed = Timed::start();
                let done = model.collection().update_one(filter, update).await.unwrap();
                let spent = timed.stop();
                assert_eq!(done.matched_count, 1);
                doc.reload().await.unwrap();
                spent
            }
            Side::Bare { value, version } => {
                let Change::Rewrite(field) = change else {
                    unreachable!("the bare side rewrites")
                };
                let timed = Timed::start();
                rewrite(value, field);
                let array = match *field {
                    "comments" => odm::bson::to_bson(&value.comments),
                    _ => odm::bson::to_bson(&value.tags),
                };
                let done = model
                    .collection()
                    .update_one(
                        doc! { "_id": value.id, "__v": *version },
                        doc! { "$set": { *field: array.unwrap() }, "$inc": { "__v": 1 } },
                    )
                    .await
                    .unwrap();
                let spent = timed.stop();
                assert_eq!(done.matched_count, 1);
                *version += 1;
                spent
            }
        }
    }
}

/// Wall and CPU time of each side, summed over its timed calls.
pub struct Sums {
    calls: usize,
    wall: Vec<Duration>,
    cpu: Vec<Duration>,
    /// Per round, each side's wall time.
    rounds: Vec<Vec<Duration>>,
}

/// `ops` timed calls of each side, in `ODM_GUARD_ROUNDS` rounds, the sides
/// alternating call by call (each first in turn), after a warm-up of a
/// tenth of that (at least one call each). The first side saves.
pub async fn alternate(sides: &mut [Side], change: &Change, ops: usize) -> Sums {
    let model = match &sides[0] {
        Side::Save(doc) => doc.model().clone(),
        _ => unreachable!("the first side saves"),
    };
    let k = sides.len();
    let rounds = env_usize("ODM_GUARD_ROUNDS", 5).min(ops);
    let per_round = ops / rounds;
    let mut n = 0;
    for i in 0..(rounds * per_round / 10).max(1) {
        for j in 0..k {
            n += 1;
            sides[(i + j) % k].call(&model, change, n).await;
        }
    }
    let mut sums = Sums {
        calls: rounds * per_round,
        wall: vec![Duration::ZERO; k],
        cpu: vec![Duration::ZERO; k],
        rounds: Vec::new(),
    };
    for _ in 0..rounds {
        let mut wall = vec![Duration::ZERO; k];
        for i in 0..per_round {
            for j in 0..k {
                let side = (i + j) % k;
                n += 1;
                let (w, c) = sides[side].call(&model, change, n).await;
                wall[side] += w;
                sums.cpu[side] += c;
            }
        }
        (0..k).for_each(|s| sums.wall[s] += wall[s]);
        sums.rounds.push(wall);
    }
    // Every side's document holds what its side last wrote.
    for side in sides.iter() {
        let value: &Post = match side {
            Side::Save(doc) | Side::Update(doc, _) => doc,
            Side::Bare { value, .. } => value,
        };
        let stored = model.find_by_id(value.id).await.unwrap().unwrap();
        assert!(*stored == *value, "the stored document is the side's");
    }
    sums
}

impl Sums {
    /// `SECTION SHAPE ROW_ns W` and `SECTION SHAPE ROW_cpu_ns C` per side
    /// (per call).
    pub fn print(&self, section: &str, name: &str, rows: &[&str]) {
        let per_call = |d: Duration| d.as_nanos() / self.calls as u128;
        println!(
            "{section} {name} alternated: {} timed calls per side in {} rounds",
            self.calls,
            self.rounds.len()
        );
        for (s, row) in rows.iter().enumerate() {
            println!("{section} {name} {row}_ns {}", per_call(self.wall[s]));
            println!("{section} {name} {row}_cpu_ns {}", per_call(self.cpu[s]));
        }
    }

    /// `COMPARE SECTION SHAPE A/B W cpu C (per-round wall ..)`: the ratio
    /// of the sums of side `a` (row `rows[a]`) to side `b`'s.
    pub fn compare(&self, section: &str, name: &str, rows: &[&str], (a, b): (usize, usize)) {
        let ratio = |of: &[Duration]| of[a].as_secs_f64() / of[b].as_secs_f64();
        let mut rounds: Vec<f64> = self.rounds.iter().map(|r| ratio(r)).collect();
        rounds.sort_by(f64::total_cmp);
        println!(
            "COMPARE {section} {name} {}/{} {:.2} cpu {:.2} (per-round wall {:.2}..{:.2}, median {:.2})",
            rows[a],
            rows[b],
            ratio(&self.wall),
            ratio(&self.cpu),
            rounds[0],
            rounds[rounds.len() - 1],
            rounds[rounds.len() / 2],
        );
    }
}
