//! `optimistic_concurrency(include(..))` / `exclude(..)` with nested paths
//! (`profile.first_name`, `comments.text`, `prefs."dark mode".enabled`,
//! `prefs.*.seen`), against the server: two stale copies of one document,
//! the first saving a checked change, the second saving a change at, under
//! or above a listed path (refused with `Error::Version`) or elsewhere (both
//! land); then many tasks at once, and a path through a flattened field.
//! The matching itself is unit-tested in `odm/src/paths`.

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::{element_has, in_place, stored, two_copies, with_parents};

use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use tokio::sync::Barrier;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub first_name: String,
    pub last_name: String,
    pub visits: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Pref {
    pub enabled: bool,
    pub seen: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Comment {
    pub text: String,
    pub likes: i32,
}

macro_rules! account_model {
    ($name:ident, $collection:literal, $($oc:tt)*) => {
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
        #[odm(collection = $collection, optimistic_concurrency($($oc)*))]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            #[serde(rename = "_id")]
            pub id: ObjectId,
            pub status: String,
            pub profile: Profile,
            pub comments: Vec<Comment>,
            pub prefs: BTreeMap<String, Pref>,
            pub note: String,
        }

        impl $name {
            fn fresh() -> Self {
                let pref = |enabled| Pref { enabled, seen: 0 };
                $name {
                    id: ObjectId::new(),
                    status: "NEW".into(),
                    profile: Profile {
                        first_name: "Ada".into(),
                        last_name: "Lovelace".into(),
                        visits: 0,
                    },
                    comments: vec![
                        Comment { text: "first".into(), likes: 0 },
                        Comment { text: "second".into(), likes: 0 },
                    ],
                    prefs: BTreeMap::from([
                        ("dark mode".to_string(), pref(true)),
                        ("sound".to_string(), pref(false)),
                    ]),
                    note: String::new(),
                }
            }

            /// What the first copy of `stale_copy` stores.
            fn approved(id: ObjectId) -> Self {
                let status = "APPROVED".into();
                $name { id, status, ..$name::fresh() }
            }
        }
    };
}

account_model!(
    Included,
    "included",
    include(profile.first_name, status, comments.text, prefs."dark mode".enabled)
);
account_model!(
    Excluded,
    "excluded",
    exclude(profile.visits, comments.likes, prefs.*.seen, note)
);

/// Stores `value`, loads two copies at version 0, saves `first` on one
/// (a change of `status`, checked in both models: the version moves to 1)
/// and makes `second`'s change on the other, left pending for the caller.
async fn stale_copy<T: Document>(
    model: &Model<T>,
    value: T,
    id: ObjectId,
    first: impl FnOnce(&mut T),
    second: impl FnOnce(&mut T),
) -> Doc<T> {
    model.create(value).await.unwrap();
    let (mut a, mut b) = two_copies(model, id).await;
    first(&mut a);
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(1));
    second(&mut b);
    b
}

/// What `value` stores at `version`.
fn stored_as<T: Serialize>(value: &T, version: i32) -> odm::bson::Document {
    let mut doc = common::bson::to_document(value).unwrap();
    doc.insert("__v", version);
    doc
}

/// `r` is the `Error::Version` of a save expecting version 0.
fn expect_version(r: odm::Result<()>, paths: &[&str]) {
    match r {
        Err(Error::Version(e)) => {
            assert_eq!(e.version, 0);
            assert_eq!(e.modified_paths, paths);
        }
        other => panic!("expected Error::Version for {paths:?}, got {other:?}"),
    }
}

type Change<T> = fn(&mut T);

#[tokio::test]
async fn include_checks_changes_at_under_or_above_a_listed_path() {
    let t = TestDb::new().await;
    let m = Included::model(&t.db);
    let cases: [(Change<Included>, &[&str]); 6] = [
        (
            |d| d.profile.first_name = "Bea".into(),
            &["profile.firstName"],
        ),
        // Under `comments.text`, through an array position.
        (
            |d| d.comments[1].text = "edited".into(),
            &["comments.1.text"],
        ),
        // Above `comments.text`: an append rewrites the array.
        (
            |d| {
                d.comments.push(Comment {
                    text: "third".into(),
                    likes: 0,
                })
            },
            &["comments"],
        ),
        (
            |d| d.prefs.get_mut("dark mode").unwrap().enabled = false,
            &["prefs.dark mode.enabled"],
        ),
        // Above `prefs."dark mode".enabled`: removing the key.
        (
            |d| {
                d.prefs.remove("dark mode");
            },
            &["prefs.dark mode"],
        ),
        (|d| d.status = "BANNED".into(), &["status"]),
    ];
    for (second, paths) in cases {
        let value = Included::fresh();
        let id = value.id;
        let mut b = stale_copy(&m, value, id, |a| a.status = "APPROVED".into(), second).await;
        let (filter, update) = b.changes().expect("a change");
        assert_eq!(filter, doc! { "_id": id, "__v": 0 }, "{paths:?}");
        assert_eq!(update.get_document("$inc").unwrap(), &doc! { "__v": 1 });
        expect_version(b.save().await, paths);
        // Nothing of the stale copy landed.
        let expected = stored_as(&Included::approved(id), 1);
        assert_eq!(stored(&m, id).await, expected, "{paths:?}");
    }
    t.finish().await;
}

#[tokio::test]
async fn include_lets_changes_elsewhere_land() {
    let t = TestDb::new().await;
    let m = Included::model(&t.db);
    // (change, update, parents): an unchecked save requires the parents
    // of its nested paths to still be documents or arrays.
    let cases: [(Change<Included>, odm::bson::Document, &[&str]); 5] = [
        (
            |d| d.profile.last_name = "Byron".into(),
            doc! { "$set": { "profile.lastName": "Byron" } },
            &["profile"],
        ),
        (
            // Also the positional guard: likes as loaded (in_place below).
            |d| d.comments[0].likes = 3,
            doc! { "$set": { "comments.0.likes": 3 } },
            &["comments.0"],
        ),
        (
            |d| d.prefs.get_mut("dark mode").unwrap().seen = 2,
            doc! { "$set": { "prefs.dark mode.seen": 2 } },
            &["prefs.dark mode"],
        ),
        (
            |d| {
                let pref = Pref {
                    enabled: true,
                    seen: 0,
                };
                d.prefs.insert("light".into(), pref);
            },
            doc! { "$set": { "prefs.light": { "enabled": true, "seen": 0 } } },
            &["prefs"],
        ),
        (
            |d| d.note = "hi".into(),
            doc! { "$set": { "note": "hi" } },
            &[],
        ),
    ];
    for (second, update, parents) in cases {
        let value = Included::fresh();
        let id = value.id;
        let mut b = stale_copy(&m, value, id, |a| a.status = "APPROVED".into(), second).await;
        // An in-place edit of an array element also carries the positional
        // guard: with no version check, it is what orders two edits of it.
        let guards = match update
            .get_document("$set")
            .unwrap()
            .contains_key("comments.0.likes")
        {
            true => vec![element_has("comments", 0, &[("likes", Some(0.into()))])],
            false => vec![],
        };
        assert_eq!(
            b.changes(),
            Some((
                in_place(with_parents(doc! { "_id": id }, parents), guards),
                update.clone()
            )),
            "no version check"
        );
        b.save().await.unwrap();
        assert_eq!(b.version(), Some(0), "not bumped");
        // Both landed: the first copy's status and this change.
        let mut expected = Included::clone(&b);
        expected.status = "APPROVED".into();
        assert_eq!(stored(&m, id).await, stored_as(&expected, 1), "{update}");
    }
    t.finish().await;
}

#[tokio::test]
async fn exclude_lets_changes_at_or_under_a_listed_path_land() {
    let t = TestDb::new().await;
    let m = Excluded::model(&t.db);
    let value = Excluded::fresh();
    let id = value.id;
    let mut b = stale_copy(
        &m,
        value,
        id,
        |a| a.status = "APPROVED".into(),
        |b| {
            b.profile.visits = 7;
            b.comments[1].likes = 2;
            b.prefs.get_mut("sound").unwrap().seen = 4;
            b.note = "seen".into();
        },
    )
    .await;
    assert_eq!(
        b.changes(),
        Some((
            in_place(
                with_parents(
                    doc! { "_id": id },
                    &["profile", "comments.1", "prefs.sound"]
                ),
                vec![element_has("comments", 1, &[("likes", Some(0.into()))])]
            ),
            doc! { "$set": {
                "profile.visits": 7,
                "comments.1.likes": 2,
                "prefs.sound.seen": 4,
                "note": "seen",
            } }
        ))
    );
    b.save().await.unwrap();
    let mut expected = Excluded::clone(&b);
    expected.status = "APPROVED".into();
    assert_eq!(stored(&m, id).await, stored_as(&expected, 1));
    t.finish().await;
}

#[tokio::test]
async fn exclude_checks_a_save_with_any_change_outside_or_above() {
    let t = TestDb::new().await;
    let m = Excluded::model(&t.db);
    let cases: [(Change<Excluded>, &[&str]); 3] = [
        // One excluded change and one that is not.
        (
            |d| {
                d.profile.visits = 7;
                d.profile.first_name = "Bea".into();
            },
            &["profile.firstName", "profile.visits"],
        ),
        (
            |d| d.comments[0].text = "edited".into(),
            &["comments.0.text"],
        ),
        // Above `prefs.*.seen`: removing a key drops its `enabled` too.
        (
            |d| {
                d.prefs.remove("sound");
            },
            &["prefs.sound"],
        ),
    ];
    for (second, paths) in cases {
        let value = Excluded::fresh();
        let id = value.id;
        let mut b = stale_copy(&m, value, id, |a| a.status = "APPROVED".into(), second).await;
        assert_eq!(b.changes().unwrap().0, doc! { "_id": id, "__v": 0 });
        expect_version(b.save().await, paths);
        let expected = stored_as(&Excluded::approved(id), 1);
        assert_eq!(stored(&m, id).await, expected, "{paths:?}");
    }
    t.finish().await;
}

const TASKS: usize = 8;
const ROUNDS: usize = 10;

/// Every round, `TASKS` tasks load the same document, wait for each other,
/// and save their own change at once. Returns, per round, how many saves
/// succeeded and how many failed with `Error::Version`, and the documents.
async fn race(
    m: &Model<Included>,
    change: fn(&mut Included, usize),
) -> (Vec<(usize, usize)>, Vec<Included>) {
    let mut outcomes = Vec::new();
    let mut documents = Vec::new();
    for _ in 0..ROUNDS {
        let value = Included::fresh();
        let id = value.id;
        m.create(value).await.unwrap();
        let barrier = Arc::new(Barrier::new(TASKS));
        let tasks: Vec<_> = (0..TASKS)
            .map(|i| {
                let (m, barrier) = (m.clone(), barrier.clone());
                tokio::spawn(async move {
                    let mut d = m.find_by_id(id).await.unwrap().unwrap();
                    barrier.wait().await; // every task holds the same version
                    change(&mut d, i);
                    d.save().await
                })
            })
            .collect();
        let (mut saved, mut refused) = (0, 0);
        for task in tasks {
            match task.await.unwrap() {
                Ok(()) => saved += 1,
                Err(Error::Version(_)) => refused += 1,
                Err(e) => panic!("unexpected error: {e}"),
            }
        }
        outcomes.push((saved, refused));
        documents.push(m.find_by_id(id).await.unwrap().unwrap().into_inner());
    }
    (outcomes, documents)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_saves_of_an_included_nested_path_let_one_win() {
    let t = TestDb::new().await;
    let m = Included::model(&t.db);
    let (outcomes, documents) = race(&m, |d, i| d.profile.first_name = format!("task {i}")).await;
    assert_eq!(outcomes, vec![(1, TASKS - 1); ROUNDS]);
    for d in documents {
        assert!(d.profile.first_name.starts_with("task "), "{d:?}");
    }
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_saves_elsewhere_all_land() {
    let t = TestDb::new().await;
    let m = Included::model(&t.db);
    let (outcomes, documents) = race(&m, |d, i| {
        let pref = Pref {
            enabled: true,
            seen: i as i32,
        };
        d.prefs.insert(format!("task {i}"), pref);
    })
    .await;
    assert_eq!(outcomes, vec![(TASKS, 0); ROUNDS]);
    for d in documents {
        for i in 0..TASKS {
            assert_eq!(d.prefs[&format!("task {i}")].seen, i as i32, "{d:?}");
        }
        assert_eq!(d.prefs.len(), TASKS + 2);
    }
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Audit {
    pub reviewed_by: String,
    pub views: i32,
}

/// A flattened struct's fields are stored at the top level: the listed
/// path names it through the flattened field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "audited", optimistic_concurrency(include(audit.reviewed_by)))]
pub struct Audited {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[serde(flatten)]
    pub audit: Audit,
}

#[tokio::test]
async fn a_listed_path_through_a_flattened_field() {
    let t = TestDb::new().await;
    let m = Audited::model(&t.db);
    let id = ObjectId::new();
    let audit = Audit {
        reviewed_by: "ann".into(),
        views: 0,
    };
    m.create(Audited { id, audit }).await.unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.audit.reviewed_by = "bob".into();
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": id, "__v": 0 },
            doc! { "$set": { "reviewed_by": "bob" }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    b.audit.views = 1; // not listed: lands
    b.save().await.unwrap();
    b.audit.reviewed_by = "cid".into(); // listed: refused
    expect_version(b.save().await, &["reviewed_by"]);
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "reviewed_by": "bob", "views": 1, "__v": 1 }
    );
    t.finish().await;
}
