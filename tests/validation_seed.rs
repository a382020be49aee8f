//! The seed problem of validators: "an APPROVED user must have an avatar,
//! and avatars are https URLs" must hold in the database, not only in one
//! in-memory copy. Validators check the copy being saved;
//! `optimistic_concurrency` makes a stale copy's save fail, so together the
//! rule holds, even with many concurrent writers.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use mongodb::bson::doc;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use tokio::sync::Barrier;

/// The `User` of API.md, with the avatar rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users", optimistic_concurrency, validate = Self::avatar_rules)]
pub struct User {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub email: String,
    #[odm(one_of("PENDING", "APPROVED"))]
    pub status: String,
    #[odm(validate = https_avatar)]
    pub avatar: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
}

impl User {
    fn avatar_rules(&self) -> Result<(), ValidationError> {
        if self.status == "APPROVED" && self.avatar.is_none() {
            return Err(ValidationError::new(
                "avatar",
                "required when status is APPROVED",
            ));
        }
        Ok(())
    }
}

fn https_avatar(avatar: &Option<String>) -> Result<(), String> {
    match avatar {
        Some(url) if !url.starts_with("https://") => Err("must be an https URL".into()),
        _ => Ok(()),
    }
}

/// The same rules without `optimistic_concurrency`: the control that shows
/// validators alone cannot keep the rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users", validate = Self::avatar_rules)]
pub struct LooseUser {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub email: String,
    pub status: String,
    pub avatar: Option<String>,
}

impl LooseUser {
    fn avatar_rules(&self) -> Result<(), ValidationError> {
        if self.status == "APPROVED" && self.avatar.is_none() {
            return Err(ValidationError::new(
                "avatar",
                "required when status is APPROVED",
            ));
        }
        Ok(())
    }
}

fn pending(id: ObjectId, n: usize) -> User {
    User {
        id,
        email: format!("u{n}@example.com"),
        status: "PENDING".into(),
        avatar: Some(format!("https://img.example.com/{n}.png")),
        tags: vec![],
    }
}

/// Stored users that break the rule.
async fn violations(users: &Model<User>) -> u64 {
    users
        .count(doc! { "status": "APPROVED", "avatar": null })
        .await
        .unwrap()
}

#[tokio::test]
async fn a_stale_copy_cannot_break_the_rule() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let id = ObjectId::new();
    users.create(pending(id, 1)).await.unwrap();
    let mut a = users.find_by_id(id).await.unwrap().unwrap();
    let mut b = users.find_by_id(id).await.unwrap().unwrap();

    a.status = "APPROVED".into();
    a.save().await.unwrap();

    // B still sees PENDING, so clearing the avatar is valid in its copy; the
    // version check stops it.
    b.avatar = None;
    match b.save().await {
        Err(Error::Version(e)) => assert_eq!(
            e.to_string(),
            format!(
                "No matching document found for id \"{}\" version 0 modifiedPaths \"avatar\"",
                id.to_hex()
            )
        ),
        other => panic!("expected a version error, got {other:?}"),
    }
    // Reloaded, B sees APPROVED, and the validator stops the same change.
    b.reload().await.unwrap();
    b.avatar = None;
    match b.save().await {
        Err(Error::Validation(e)) => {
            assert_eq!(
                e.to_string(),
                "validation failed: avatar: required when status is APPROVED"
            )
        }
        other => panic!("expected a validation error, got {other:?}"),
    }
    // An http avatar is refused too.
    b.avatar = Some("http://img.example.com/1.png".into());
    match b.save().await {
        Err(Error::Validation(e)) => assert_eq!(e.paths(), ["avatar"]),
        other => panic!("expected a validation error, got {other:?}"),
    }

    let stored = users.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(stored.status, "APPROVED");
    assert_eq!(
        stored.avatar.as_deref(),
        Some("https://img.example.com/1.png")
    );
    assert_eq!(stored.version(), Some(1));
    assert_eq!(violations(&users).await, 0);
    t.finish().await;
}

#[tokio::test]
async fn without_optimistic_concurrency_the_rule_breaks() {
    let t = TestDb::new().await;
    let users = LooseUser::model(&t.db);
    let id = ObjectId::new();
    users
        .create(LooseUser {
            id,
            email: "u@example.com".into(),
            status: "PENDING".into(),
            avatar: Some("https://img.example.com/u.png".into()),
        })
        .await
        .unwrap();
    let mut a = users.find_by_id(id).await.unwrap().unwrap();
    let mut b = users.find_by_id(id).await.unwrap().unwrap();
    a.status = "APPROVED".into();
    a.save().await.unwrap();
    b.avatar = None;
    b.save().await.unwrap(); // a plain $set: nothing checks the version
    assert_eq!(violations(&User::model(&t.db)).await, 1);
    t.finish().await;
}

const PAIRS: usize = 20;
const ROUNDS: usize = 5;

#[derive(Default)]
struct Outcomes {
    saved: AtomicUsize,
    version_errors: AtomicUsize,
    /// The loser reloaded and applied its change again: refused by a validator.
    refused_after_reload: AtomicUsize,
    approver_won: AtomicUsize,
    clearer_won: AtomicUsize,
}

/// One side of a pair: load, wait until the other side has loaded too,
/// apply the change and save; on a version conflict reload and try again.
async fn side(
    users: Model<User>,
    id: ObjectId,
    approve: bool,
    barrier: Arc<Barrier>,
    out: Arc<Outcomes>,
) {
    let change = |u: &mut User| {
        if approve {
            u.status = "APPROVED".into();
        } else {
            u.avatar = None;
        }
    };
    let mut doc = users.find_by_id(id).await.unwrap().unwrap();
    barrier.wait().await;
    change(&mut doc);
    match doc.save().await {
        Ok(()) => {
            out.saved.fetch_add(1, Ordering::SeqCst);
            let won = if approve {
                &out.approver_won
            } else {
                &out.clearer_won
            };
            won.fetch_add(1, Ordering::SeqCst);
        }
        Err(Error::Version(e)) => {
            assert_eq!(e.version, 0);
            out.version_errors.fetch_add(1, Ordering::SeqCst);
            doc.reload().await.unwrap();
            change(&mut doc);
            match doc.save().await {
                Err(Error::Validation(e)) => {
                    assert_eq!(e.paths(), ["avatar"]);
                    out.refused_after_reload.fetch_add(1, Ordering::SeqCst);
                }
                other => panic!("the retry must be refused by the validator, got {other:?}"),
            }
        }
        Err(other) => panic!("unexpected error: {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_pairs_never_store_an_approved_user_without_avatar() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let out = Arc::new(Outcomes::default());

    // A reader that checks the rule in the database while the pairs race.
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (users, done) = (users.clone(), Arc::clone(&done));
        tokio::spawn(async move {
            let (mut checks, mut seen) = (0u64, 0u64);
            while !done.load(Ordering::SeqCst) {
                seen += violations(&users).await;
                checks += 1;
            }
            (checks, seen)
        })
    };

    for round in 0..ROUNDS {
        let mut tasks = Vec::new();
        for n in 0..PAIRS {
            let id = ObjectId::new();
            users.create(pending(id, round * PAIRS + n)).await.unwrap();
            let barrier = Arc::new(Barrier::new(2));
            for approve in [true, false] {
                let fut = side(
                    users.clone(),
                    id,
                    approve,
                    Arc::clone(&barrier),
                    Arc::clone(&out),
                );
                tasks.push(tokio::spawn(fut));
            }
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(violations(&users).await, 0, "round {round}");
    }
    done.store(true, Ordering::SeqCst);
    let (checks, seen) = watcher.await.unwrap();

    let races = PAIRS * ROUNDS;
    let load = |c: &AtomicUsize| c.load(Ordering::SeqCst);
    assert_eq!(load(&out.saved), races, "one save per pair wins");
    assert_eq!(
        load(&out.version_errors),
        races,
        "the stale copy fails with Error::Version"
    );
    assert_eq!(load(&out.refused_after_reload), races);
    assert_eq!(load(&out.approver_won) + load(&out.clearer_won), races);
    assert!(checks > 0);
    assert_eq!(seen, 0, "the watcher saw a violation in {checks} checks");
    // Every user ends in one of the two valid states, at version 1.
    assert_eq!(users.count(doc! {}).await.unwrap(), races as u64);
    let approved = users
        .count(doc! { "status": "APPROVED", "avatar": { "$type": "string" }, "__v": 1 })
        .await
        .unwrap();
    let cleared = users
        .count(doc! { "status": "PENDING", "avatar": null, "__v": 1 })
        .await
        .unwrap();
    assert_eq!(approved as usize, load(&out.approver_won));
    assert_eq!(cleared as usize, load(&out.clearer_won));
    println!(
        "{races} races: approver won {}, clearer won {}; watcher ran {checks} checks",
        load(&out.approver_won),
        load(&out.clearer_won)
    );
    t.finish().await;
}
