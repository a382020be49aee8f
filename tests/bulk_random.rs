//! Random histories mixing `bulk_save` and single `save()`s of the same
//! documents (the API's `User`, under optimistic_concurrency, so every
//! stale save is refused), with stale copies interleaved: after every step, every `Doc`
//! whose save (bulk or single) was `Ok` is stored exactly as it is in
//! memory, with its version, and nothing is pending; every failure is
//! `Error::Version` (a stale copy), after which the copy reloads. On the
//! `update` command's path a stale copy may instead be told in doubt: when
//! another copy already stored exactly what it would write, the read back
//! finds more documents holding their writes than the command's count,
//! and cannot tell which statement the count left out.
//!
//! `ODM_RANDOM_SEED` repeats a run (default: a fixed seed under `CI`, else
//! new each run; a failure prints it); `ODM_BULK_HISTORIES` sets the count
//! (default 3).

use crate::common;

use common::{user, User};
use mongodb::bson::Document as BsonDocument;
use odm::__private::BulkPath;
use odm::prelude::*;
use odm_testing::random::Rng;
use odm_testing::TestDb;

/// One random change: a scalar, an optional field, an array push, pop or
/// in-place edit.
fn mutate(u: &mut User, rng: &mut Rng) {
    match rng.below(6) {
        0 => u.email = format!("u{}@example.com", rng.below(1000)),
        1 => u.status = ["NEW", "ACTIVE", "BANNED"][rng.below(3)].into(),
        2 => {
            u.avatar = match u.avatar {
                Some(_) => None,
                None => Some(format!("https://a/{}", rng.below(100))),
            }
        }
        3 => u.tags.push(format!("t{}", rng.below(100))),
        4 if !u.tags.is_empty() => {
            u.tags.pop();
        }
        _ if !u.tags.is_empty() => {
            let i = rng.below(u.tags.len());
            u.tags[i] = format!("e{}", rng.below(100));
        }
        _ => u.tags.push("first".into()),
    }
}

fn expected(doc: &Doc<User>) -> BsonDocument {
    let mut d = common::bson::to_document(&**doc).unwrap();
    d.insert("__v", doc.version().unwrap() as i32);
    d
}

fn seed() -> u64 {
    if let Ok(s) = std::env::var("ODM_RANDOM_SEED") {
        let s = s.trim();
        return match s.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).unwrap(),
            None => s.parse().unwrap(),
        };
    }
    if std::env::var_os("CI").is_some() {
        return 0xB01C_5A7E;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// The outcomes counted.
#[derive(Default)]
struct Tally {
    ok: usize,
    stale: usize,
    in_doubt: usize,
}

/// Asserts stored == memory for each committed `Doc`, then reloads the
/// ones that failed. `by_commands`: the outcomes are of a batch sent by
/// the `update` command.
#[allow(clippy::too_many_arguments)]
async fn judge(
    users: &Model<User>,
    docs: &mut [Doc<User>],
    outcomes: Vec<odm::Result<()>>,
    by_commands: bool,
    tally: &mut Tally,
    seed: u64,
    step: usize,
) {
    for (doc, outcome) in docs.iter_mut().zip(outcomes) {
        match outcome {
            Ok(()) => {
                tally.ok += 1;
                assert_eq!(doc.changes(), None, "seed {seed:#x} step {step}: committed");
                let stored = common::stored(users, doc.id).await;
                assert_eq!(
                    stored,
                    expected(doc),
                    "seed {seed:#x} step {step}: stored == memory"
                );
            }
            Err(Error::Version(_)) => {
                tally.stale += 1;
                // A Doc with nothing to write fails too when its version moved on.
                doc.reload().await.unwrap();
            }
            Err(e) if by_commands && common::bulk_paths::in_doubt(&e) => {
                tally.in_doubt += 1;
                doc.reload().await.unwrap();
            }
            Err(e) => panic!("seed {seed:#x} step {step}: {e}"),
        }
    }
}

/// Bulk saves by the `bulkWrite` command.
#[tokio::test]
async fn random_histories_of_bulk_and_single_saves() {
    histories(BulkPath::BulkWrite).await
}

/// Bulk saves by the `insert` / `update` commands (servers older than
/// MongoDB 8.0).
#[tokio::test]
async fn random_histories_by_the_commands() {
    histories(BulkPath::Commands).await
}

async fn histories(path: BulkPath) {
    let histories = std::env::var("ODM_BULK_HISTORIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let base = seed();
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let by_commands = path == BulkPath::Commands;
    let mut tally = Tally::default();
    for h in 0..histories {
        let seed = base.wrapping_add(h);
        let mut rng = Rng::new(seed);
        users.collection().delete_many(doc! {}).await.unwrap();
        let created = users
            .insert_many((0..8).map(|_| user()))
            .path(path)
            .await
            .unwrap();
        let mut docs: Vec<Doc<User>> = created.into_iter().map(Result::unwrap).collect();
        // A second copy of some documents, loaded now and saved later.
        let mut others: Vec<Doc<User>> = Vec::new();
        for doc in &docs[..4] {
            others.push(users.find_by_id(doc.id).await.unwrap().unwrap());
        }
        for step in 0..12 {
            for doc in docs.iter_mut() {
                for _ in 0..rng.below(3) {
                    mutate(doc, &mut rng);
                }
            }
            // A stale copy saves first, now and then.
            if rng.below(2) == 0 {
                let i = rng.below(others.len());
                mutate(&mut others[i], &mut rng);
                let outcome = others[i].save().await;
                let other = &mut others[i..=i];
                judge(&users, other, vec![outcome], false, &mut tally, seed, step).await;
            }
            // Some Docs by one bulk save, the rest one by one.
            let split = rng.below(docs.len() + 1);
            let (bulk, single) = docs.split_at_mut(split);
            let outcomes = users.bulk_save(bulk).path(path).await.unwrap();
            judge(&users, bulk, outcomes, by_commands, &mut tally, seed, step).await;
            for doc in single.iter_mut() {
                let outcome = doc.save().await;
                let doc = std::slice::from_mut(doc);
                judge(&users, doc, vec![outcome], false, &mut tally, seed, step).await;
            }
            // The other copies, by bulk save too.
            if rng.below(3) == 0 {
                for other in others.iter_mut() {
                    mutate(other, &mut rng);
                }
                let outcomes = users.bulk_save(&mut others).path(path).await.unwrap();
                judge(
                    &users,
                    &mut others,
                    outcomes,
                    by_commands,
                    &mut tally,
                    seed,
                    step,
                )
                .await;
            }
        }
        // At the end every Doc is as stored.
        for doc in docs.iter().chain(&others) {
            let fresh = users.find_by_id(doc.id).await.unwrap().unwrap();
            if fresh.version() == doc.version() {
                assert_eq!(expected(&fresh), expected(doc), "seed {seed:#x}: end");
            }
        }
    }
    let Tally {
        ok,
        stale,
        in_doubt,
    } = tally;
    println!(
        "seed {base:#x}: {ok} saves landed, {stale} stale copies refused, {in_doubt} in doubt"
    );
    assert!(ok > 0 && stale > 0, "the histories exercised both outcomes");
    t.finish().await;
}
