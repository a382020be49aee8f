//! Mongoose's `test/versioning.test.js`, describe('optimisticConcurrency
//! (gh-15912) (gh-15915)'): which saves `optimistic_concurrency`,
//! `include(..)` and `exclude(..)` check and bump, translated to odm and run
//! against the real server. Mongoose asserts the internal version mode; here
//! the same fact is the exact `(filter, update)` from `changes()`, then the
//! save, the in-memory version and the stored document.

use crate::mongoose_support;

use mongoose_support::{expect_version, stored};
use odm::bson::Document as BsonDoc;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

async fn create<T: Document>(t: &TestDb, value: T) -> (Model<T>, Doc<T>) {
    let m = T::model(&t.db);
    let d = m.create(value).await.unwrap();
    assert_eq!(d.version(), Some(0));
    (m, d)
}

// gh-15912 / gh-15915's context: name, balance, friends, one model per form.
macro_rules! user_model {
    ($name:ident, $($oc:tt)*) => {
        #[derive(Debug, Serialize, Deserialize, Document)]
        #[odm(collection = "users", $($oc)*)]
        struct $name {
            #[serde(rename = "_id")]
            id: ObjectId,
            name: String,
            balance: i32,
            friends: Vec<String>,
        }
        impl $name {
            fn fresh() -> Self {
                $name {
                    id: ObjectId::new(),
                    name: "test".into(),
                    balance: 100,
                    friends: vec!["alice".into(), "bob".into()],
                }
            }
        }
    };
}

user_model!(UserAll, optimistic_concurrency);
user_model!(UserIncBalance, optimistic_concurrency(include(balance)));
user_model!(UserIncFriends, optimistic_concurrency(include(friends)));
user_model!(UserExcName, optimistic_concurrency(exclude(name)));
user_model!(UserExcFriends, optimistic_concurrency(exclude(friends)));

/// The (filter, update) of a save: `all` adds the version to the filter
/// and `$inc`s it.
fn expected(id: ObjectId, mut update: BsonDoc, all: bool) -> (BsonDoc, BsonDoc) {
    let mut filter = doc! { "_id": id };
    if all {
        filter.insert("__v", 0);
        update.insert("$inc", doc! { "__v": 1 });
    }
    (filter, update)
}

/// What the context document stores after a save with these values.
fn user_doc(id: ObjectId, name: &str, balance: i32, friends: &[&str], v: i32) -> BsonDoc {
    doc! { "_id": id, "name": name, "balance": balance, "friends": friends, "__v": v }
}

/// Saves `d` and checks the in-memory and stored versions and values.
macro_rules! save_and_check {
    ($m:expr, $d:expr, $name:expr, $balance:expr, $friends:expr, $v:expr) => {{
        $d.save().await.unwrap();
        assert_eq!($d.version(), Some($v));
        assert_eq!(
            stored(&$m, $d.id).await,
            user_doc($d.id, $name, $balance, $friends, $v)
        );
    }};
}

// versioning.test.js: describe('optimisticConcurrency: true') it('sets VERSION_ALL when modifying any field')
#[tokio::test]
async fn oc_true_sets_version_all_when_modifying_any_field() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserAll::fresh()).await;
    u.balance = 200;
    assert_eq!(
        u.changes(),
        Some(expected(u.id, doc! { "$set": { "balance": 200 } }, true))
    );
    save_and_check!(m, u, "test", 200, &["alice", "bob"], 1);
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: true') it('sets VERSION_ALL when modifying array field')
#[tokio::test]
async fn oc_true_sets_version_all_when_modifying_array_field() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserAll::fresh()).await;
    u.friends.push("c".into());
    let push = doc! { "$push": { "friends": { "$each": ["c"] } } };
    assert_eq!(u.changes(), Some(expected(u.id, push, true)));
    save_and_check!(m, u, "test", 100, &["alice", "bob", "c"], 1);
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: string[]') it('sets VERSION_ALL when modifying specified field')
#[tokio::test]
async fn oc_include_sets_version_all_when_modifying_specified_field() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserIncBalance::fresh()).await;
    u.balance = 200;
    assert_eq!(
        u.changes(),
        Some(expected(u.id, doc! { "$set": { "balance": 200 } }, true))
    );
    save_and_check!(m, u, "test", 200, &["alice", "bob"], 1);
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: string[]') it('sets VERSION_ALL when modifying specified array field')
#[tokio::test]
async fn oc_include_sets_version_all_when_modifying_specified_array_field() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserIncFriends::fresh()).await;
    u.friends.push("c".into());
    let push = doc! { "$push": { "friends": { "$each": ["c"] } } };
    assert_eq!(u.changes(), Some(expected(u.id, push, true)));
    save_and_check!(m, u, "test", 100, &["alice", "bob", "c"], 1);
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: string[]') it('does not set version when modifying non-specified field')
#[tokio::test]
async fn oc_include_does_not_set_version_when_modifying_non_specified_field() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserIncBalance::fresh()).await;
    u.name = "changed".into();
    assert_eq!(
        u.changes(),
        Some(expected(
            u.id,
            doc! { "$set": { "name": "changed" } },
            false
        ))
    );
    save_and_check!(m, u, "changed", 100, &["alice", "bob"], 0);
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: string[]') it('does not set version when modifying non-specified array field')
// Any form of optimistic_concurrency turns array versioning off: the push
// outside the included fields is not bumped either.
#[tokio::test]
async fn oc_include_does_not_set_version_when_modifying_non_specified_array_field() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserIncBalance::fresh()).await;
    u.friends.push("new-friend".into());
    let push = doc! { "$push": { "friends": { "$each": ["new-friend"] } } };
    assert_eq!(u.changes(), Some(expected(u.id, push, false)));
    save_and_check!(m, u, "test", 100, &["alice", "bob", "new-friend"], 0);
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: { exclude: [] }') it('sets VERSION_ALL when modifying non-excluded field')
#[tokio::test]
async fn oc_exclude_sets_version_all_when_modifying_non_excluded_field() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserExcName::fresh()).await;
    u.balance = 200;
    assert_eq!(
        u.changes(),
        Some(expected(u.id, doc! { "$set": { "balance": 200 } }, true))
    );
    save_and_check!(m, u, "test", 200, &["alice", "bob"], 1);
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: { exclude: [] }') it('sets VERSION_ALL when modifying non-excluded array field')
#[tokio::test]
async fn oc_exclude_sets_version_all_when_modifying_non_excluded_array_field() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserExcName::fresh()).await;
    u.friends.push("c".into());
    let push = doc! { "$push": { "friends": { "$each": ["c"] } } };
    assert_eq!(u.changes(), Some(expected(u.id, push, true)));
    save_and_check!(m, u, "test", 100, &["alice", "bob", "c"], 1);
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: { exclude: [] }') it('does not set version when modifying only excluded field')
#[tokio::test]
async fn oc_exclude_does_not_set_version_when_modifying_only_excluded_field() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserExcName::fresh()).await;
    u.name = "changed".into();
    assert_eq!(
        u.changes(),
        Some(expected(
            u.id,
            doc! { "$set": { "name": "changed" } },
            false
        ))
    );
    save_and_check!(m, u, "changed", 100, &["alice", "bob"], 0);
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: { exclude: [] }') it('does not set version when modifying only excluded array field')
// No array versioning either: a plain $push without $inc.
#[tokio::test]
async fn oc_exclude_does_not_set_version_when_modifying_only_excluded_array_field() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserExcFriends::fresh()).await;
    u.friends.push("new-friend".into());
    let push = doc! { "$push": { "friends": { "$each": ["new-friend"] } } };
    assert_eq!(u.changes(), Some(expected(u.id, push, false)));
    save_and_check!(m, u, "test", 100, &["alice", "bob", "new-friend"], 0);
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: { exclude: [] }') it('sets VERSION_ALL when modifying both excluded and non-excluded fields')
// Extended with a stale copy making the same change: it fails, naming both
// paths.
#[tokio::test]
async fn oc_exclude_sets_version_all_when_modifying_both_fields() {
    let t = TestDb::new().await;
    let (m, mut u) = create(&t, UserExcName::fresh()).await;
    let mut stale = m.find_by_id(u.id).await.unwrap().unwrap();
    for d in [&mut u, &mut stale] {
        d.name = "changed".into();
        d.balance = 200;
    }
    let set = doc! { "$set": { "name": "changed", "balance": 200 } };
    assert_eq!(u.changes(), Some(expected(u.id, set, true)));
    save_and_check!(m, u, "changed", 200, &["alice", "bob"], 1);
    expect_version(stale.save().await, u.id, 0, "name, balance");
    t.finish().await;
}
