//! The referential rules under real concurrency: 8 tasks delete targets
//! while 8 tasks insert and update documents referring to them, under
//! each rule, counted. At the end a scan finds no reference to a missing
//! document, every write that succeeded is there (or was removed by its
//! rule after its target went), every refused write wrote nothing, and
//! every delete that succeeded took its target. The same runs again with
//! faults injected into the deletes and into the referencing writes.
//!
//! `ODM_REFS_RACE_OPS` sets the operations of each race (2,000 by
//! default); `ODM_REFS_FAULT_OPS` those of each race under a fault (96).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use common::{Fault, Monitored, Race};
use mongodb::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::random::Rng;
use serde::{Deserialize, Serialize};

/// A target model and the model referring to it under one rule.
macro_rules! case {
    ($target:ident, $referrer:ident, $targets:literal, $referrers:literal, $rule:ident, $field:ty) => {
        #[derive(Debug, Clone, Serialize, Deserialize, Document)]
        #[odm(collection = $targets, referenced_by($referrer))]
        struct $target {
            #[serde(rename = "_id")]
            id: i64,
        }

        #[derive(Debug, Clone, Serialize, Deserialize, Document)]
        #[odm(collection = $referrers)]
        struct $referrer {
            #[serde(rename = "_id")]
            id: i64,
            #[odm(reference(on_delete = $rule), index)]
            to: $field,
            writes: i64,
        }
    };
}

case!(
    RefuseTarget,
    RefuseReferrer,
    "refuse_targets",
    "refuse_referrers",
    refuse,
    Ref<RefuseTarget>
);
case!(
    CascadeTarget,
    CascadeReferrer,
    "cascade_targets",
    "cascade_referrers",
    cascade,
    Ref<CascadeTarget>
);
case!(
    ClearTarget,
    ClearReferrer,
    "clear_targets",
    "clear_referrers",
    clear,
    Option<Ref<ClearTarget>>
);
case!(
    PullTarget,
    PullReferrer,
    "pull_targets",
    "pull_referrers",
    pull,
    Vec<Ref<PullTarget>>
);

/// The rule under test.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rule {
    Refuse,
    Cascade,
    Clear,
    Pull,
}

/// What the race needs of one case: building and changing referrers,
/// reading their targets.
trait Case: Send + Sync + 'static {
    type T: odm::Document + Clone;
    type R: odm::Document + Clone;
    const RULE: Rule;
    fn target(id: i64) -> Self::T;
    fn referrer(id: i64, to: i64) -> Self::R;
    /// Points the referrer at `to` (for a list: adds it).
    fn point(r: &mut Self::R, to: i64);
}

macro_rules! impl_case {
    ($case:ident, $target:ident, $referrer:ident, $rule:ident, |$to:ident| $make:expr, |$r:ident, $t:ident| $point:expr) => {
        struct $case;
        impl Case for $case {
            type T = $target;
            type R = $referrer;
            const RULE: Rule = Rule::$rule;
            fn target(id: i64) -> $target {
                $target { id }
            }
            fn referrer(id: i64, $to: i64) -> $referrer {
                $referrer {
                    id,
                    to: $make,
                    writes: 0,
                }
            }
            fn point($r: &mut $referrer, $t: i64) {
                $point
            }
        }
    };
}

impl_case!(
    RefuseCase,
    RefuseTarget,
    RefuseReferrer,
    Refuse,
    |to| Ref::new(to),
    |r, t| r.to = Ref::new(t)
);
impl_case!(
    CascadeCase,
    CascadeTarget,
    CascadeReferrer,
    Cascade,
    |to| Ref::new(to),
    |r, t| r.to = Ref::new(t)
);
impl_case!(
    ClearCase,
    ClearTarget,
    ClearReferrer,
    Clear,
    |to| Some(Ref::new(to)),
    |r, t| r.to = Some(Ref::new(t))
);
impl_case!(
    PullCase,
    PullTarget,
    PullReferrer,
    Pull,
    |to| vec![Ref::new(to)],
    |r, t| r.to.push(Ref::new(t))
);

/// The targets a stored referrer holds.
fn held(stored: &BsonDocument) -> Vec<i64> {
    match stored.get("to") {
        Some(Bson::Array(ids)) => ids.iter().filter_map(Bson::as_i64).collect(),
        Some(Bson::Int64(id)) => vec![*id],
        _ => vec![],
    }
}

/// Counted outcomes.
#[derive(Default, Debug)]
struct Tally {
    inserted: usize,
    updated: usize,
    refused_writes: usize,
    gone_writes: usize,
    deleted: usize,
    refused_deletes: usize,
    already_gone: usize,
    faulted: usize,
}

/// What one writer knows of its own referrers (no other writer touches
/// them): for each, the targets its successful writes gave it, and
/// whether a write found it gone.
#[derive(Default)]
struct Written {
    targets: BTreeMap<i64, BTreeSet<i64>>,
    last: BTreeMap<i64, i64>,
    gone: BTreeSet<i64>,
    refused: BTreeSet<i64>,
    unknown: BTreeSet<i64>,
}

/// How many of the newest targets the tasks pick from: each delete is
/// followed by a new target, so the window moves on and stays contended.
const WINDOW: i64 = 24;

/// A target id in the window below `next`.
fn pick(rng: &mut Rng, next: &AtomicI64) -> i64 {
    let top = next.load(Ordering::SeqCst);
    top - 1 - rng.below(WINDOW as usize) as i64
}

fn ops(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// Runs one race of `total` operations on `m`'s database and checks the
/// end state. With `fault`, the first `times` commands named `command` of
/// the client fail so.
async fn race<C: Case>(m: &Monitored, total: usize, fault: Option<(&str, Fault)>) {
    let (targets, referrers) = (C::T::model(m.db()), C::R::model(m.db()));
    targets.collection().drop().await.unwrap();
    referrers.collection().drop().await.unwrap();
    referrers.sync_indexes().await.unwrap();
    targets
        .insert_many((0..WINDOW).map(C::target))
        .await
        .unwrap();
    // New targets come from a client of their own: faults are the
    // deletes' and the referencing writes' only.
    let plain = odm_testing::client().await;
    let creator = C::T::model(&plain.database(m.db().name()));
    let next = Arc::new(AtomicI64::new(WINDOW));
    let fail_point = match fault {
        Some((command, fault)) => Some(m.fail(&[command], 3, fault).await),
        None => None,
    };
    let faulted = fault.is_some();
    let tally = Arc::new(Mutex::new(Tally::default()));
    let deletes: Arc<Mutex<Vec<(i64, bool)>>> = Arc::default();
    let race = Race::new(16);
    let per_task = total / 16;
    let mut tasks = Vec::new();
    for task in 0..8_u64 {
        let (targets, tally, deletes, race) = (
            targets.clone(),
            tally.clone(),
            deletes.clone(),
            race.clone(),
        );
        let (creator, next) = (creator.clone(), next.clone());
        tasks.push(tokio::spawn(race.run(async move {
            let mut rng = Rng::new(1000 + task);
            for i in 0..per_task {
                let t = pick(&mut rng, &next);
                let outcome = if i % 2 == 0 {
                    targets.delete_many(doc! { "_id": t }).await.map(|n| n == 1)
                } else {
                    match targets.find_by_id(t).await {
                        Ok(Some(mut doc)) => match doc.delete().await {
                            Err(Error::NotFound(_)) => Ok(false),
                            other => other.map(|()| true),
                        },
                        Ok(None) => Ok(false),
                        Err(e) => Err(e),
                    }
                };
                {
                    let mut tally = tally.lock().unwrap();
                    match outcome {
                        Ok(true) => {
                            tally.deleted += 1;
                            deletes.lock().unwrap().push((t, true));
                        }
                        Ok(false) => tally.already_gone += 1,
                        Err(Error::Referenced(e)) => {
                            assert_eq!(C::RULE, Rule::Refuse, "{e}");
                            assert!(e.count() >= 1);
                            tally.refused_deletes += 1;
                        }
                        Err(_) if faulted => tally.faulted += 1,
                        Err(e) => panic!("delete of {t}: {e}"),
                    }
                }
                let new = next.fetch_add(1, Ordering::SeqCst);
                creator.create(C::target(new)).await.unwrap();
            }
        })));
    }
    let mut writers = Vec::new();
    for task in 0..8_i64 {
        let (referrers, tally, race, next) =
            (referrers.clone(), tally.clone(), race.clone(), next.clone());
        writers.push(tokio::spawn(race.run(async move {
            let mut rng = Rng::new(2000 + task as u64);
            let mut written = Written::default();
            let mut mine: Vec<i64> = Vec::new();
            for i in 0..per_task {
                let t = pick(&mut rng, &next);
                let update = i % 2 == 1 && !mine.is_empty();
                let (id, outcome) = if update {
                    let id = mine[rng.below(mine.len())];
                    let outcome = match referrers.find_by_id(id).await {
                        Ok(Some(mut doc)) => {
                            C::point(&mut doc, t);
                            doc.save().await.map(|()| true)
                        }
                        // Deleted by a cascade since.
                        Ok(None) => Ok(false),
                        Err(e) => Err(e),
                    };
                    (id, outcome)
                } else {
                    let id = task * 1_000_000 + i as i64;
                    let outcome = referrers.create(C::referrer(id, t)).await.map(|_| true);
                    (id, outcome)
                };
                let mut tally = tally.lock().unwrap();
                match outcome {
                    Ok(false) | Err(Error::NotFound(_)) if update && C::RULE == Rule::Cascade => {
                        tally.gone_writes += 1;
                        written.gone.insert(id);
                        mine.retain(|x| *x != id);
                    }
                    // An insert whose outcome a fault left unknown did
                    // not land.
                    Ok(false) if written.unknown.contains(&id) => {
                        mine.retain(|x| *x != id);
                    }
                    Ok(false) => panic!("{id} is gone under {:?}", C::RULE),
                    Ok(true) => {
                        if update {
                            tally.updated += 1;
                        } else {
                            tally.inserted += 1;
                            mine.push(id);
                        }
                        let targets = written.targets.entry(id).or_default();
                        if C::RULE != Rule::Pull {
                            targets.clear();
                        }
                        targets.insert(t);
                        written.last.insert(id, t);
                    }
                    Err(Error::Dangling(e)) => {
                        // A save checks the ids it writes: a push, the
                        // pushed one.
                        assert_eq!(e.id(), &Bson::Int64(t));
                        tally.refused_writes += 1;
                        if !update {
                            written.refused.insert(id);
                        }
                    }
                    Err(_) if faulted => {
                        tally.faulted += 1;
                        written.unknown.insert(id);
                        if !update {
                            mine.push(id);
                        }
                    }
                    Err(e) => panic!("write of {id} to {t}: {e}"),
                }
            }
            written
        })));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let mut all = Written::default();
    for writer in writers {
        let w = writer.await.unwrap();
        all.targets.extend(w.targets);
        all.last.extend(w.last);
        all.gone.extend(w.gone);
        all.refused.extend(w.refused);
        all.unknown.extend(w.unknown);
    }
    if let Some(fail_point) = fail_point {
        fail_point.off().await;
    }
    let tally = Arc::try_unwrap(tally).unwrap().into_inner().unwrap();
    let label = format!("{:?} {:?}", C::RULE, fault.map(|(c, f)| (c.to_string(), f)));
    assert!(
        race.most() >= 8,
        "{label}: only {} tasks ran at once",
        race.most()
    );

    // The scan: every reference points at a stored target.
    use futures_util::TryStreamExt;
    let alive: BTreeSet<i64> = targets
        .collection()
        .find(doc! {})
        .await
        .unwrap()
        .try_collect::<Vec<BsonDocument>>()
        .await
        .unwrap()
        .iter()
        .map(|d| d.get_i64("_id").unwrap())
        .collect();
    let stored: BTreeMap<i64, BsonDocument> = referrers
        .collection()
        .find(doc! {})
        .await
        .unwrap()
        .try_collect::<Vec<BsonDocument>>()
        .await
        .unwrap()
        .into_iter()
        .map(|d| (d.get_i64("_id").unwrap(), d))
        .collect();
    let dangling: Vec<(i64, i64)> = stored
        .iter()
        .flat_map(|(id, d)| held(d).into_iter().map(move |t| (*id, t)))
        .filter(|(_, t)| !alive.contains(t))
        .collect();
    assert!(
        dangling.is_empty(),
        "{label}: dangling references {dangling:?}"
    );

    // Every delete that succeeded took its target.
    for (t, _) in deletes.lock().unwrap().iter() {
        assert!(!alive.contains(t), "{label}: deleted target {t} is back");
    }
    // Every refused insert wrote nothing.
    for id in &all.refused {
        assert!(
            !stored.contains_key(id),
            "{label}: refused insert {id} is stored"
        );
    }
    // Every successful write is there, or its rule removed it after its
    // target went.
    for (id, last) in &all.last {
        if all.unknown.contains(id) {
            continue;
        }
        let doc = stored.get(id);
        let holds = doc.map(held).unwrap_or_default();
        match (C::RULE, alive.contains(last)) {
            (Rule::Cascade, false) => assert!(doc.is_none(), "{label}: {id} outlived its target"),
            (Rule::Refuse, false) => panic!("{label}: target {last} of {id} was deleted"),
            (Rule::Clear, false) => assert!(
                doc.is_some() && holds.is_empty(),
                "{label}: {id} not cleared"
            ),
            (Rule::Pull, _) => {
                let expected: Vec<i64> = all.targets[id]
                    .iter()
                    .copied()
                    .filter(|t| alive.contains(t))
                    .collect();
                let holds: BTreeSet<i64> = holds.into_iter().collect();
                let expected: BTreeSet<i64> = expected.into_iter().collect();
                assert!(doc.is_some(), "{label}: {id} lost");
                assert_eq!(holds, expected, "{label}: {id}");
            }
            (_, true) => {
                assert!(!all.gone.contains(id) || C::RULE == Rule::Cascade);
                if !all.gone.contains(id) {
                    assert_eq!(holds, vec![*last], "{label}: {id} lost its last write");
                }
            }
        }
    }
    println!(
        "{label}: {tally:?}, {} referrers stored, {} targets left",
        stored.len(),
        alive.len()
    );
    plain.shutdown().await;
    if fault.is_none() {
        assert!(
            tally.refused_writes > 0,
            "{label}: no write was refused: {tally:?}"
        );
        assert!(tally.deleted > 0, "{label}: nothing deleted: {tally:?}");
        if C::RULE == Rule::Refuse {
            assert!(
                tally.refused_deletes > 0,
                "{label}: no delete refused: {tally:?}"
            );
        }
    }
}

async fn race_all<C: Case>(label: &str) {
    let m = Monitored::new(label).await;
    race::<C>(&m, ops("ODM_REFS_RACE_OPS", 2_000), None).await;
    m.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refuse_holds_under_a_race() {
    race_all::<RefuseCase>("race_refuse").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cascade_holds_under_a_race() {
    race_all::<CascadeCase>("race_cascade").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn clear_holds_under_a_race() {
    race_all::<ClearCase>("race_clear").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pull_holds_under_a_race() {
    race_all::<PullCase>("race_pull").await;
}

/// Each fault of the matrix on the deletes' `delete` and on the
/// referencing writes' `insert`, under each rule.
async fn faults<C: Case>(label: &str) {
    let Some(m) = Monitored::with_fail_points(label).await else {
        return;
    };
    let total = ops("ODM_REFS_FAULT_OPS", 96);
    for command in ["delete", "insert"] {
        for fault in Fault::ALL {
            race::<C>(&m, total, Some((command, fault))).await;
        }
    }
    m.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refuse_holds_under_faults() {
    faults::<RefuseCase>("race_refuse_faults").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cascade_holds_under_faults() {
    faults::<CascadeCase>("race_cascade_faults").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn clear_holds_under_faults() {
    faults::<ClearCase>("race_clear_faults").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pull_holds_under_faults() {
    faults::<PullCase>("race_pull_faults").await;
}
