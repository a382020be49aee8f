//! Mongoose's optimisticConcurrency tests (`test/versioning.test.js`, plus
//! one of `test/model.test.js`), translated to odm and run against the real
//! server. Each test names the `it(...)` it comes from. Mongoose asserts the
//! internal version mode (`$__.version`); here the same fact is the exact
//! `(filter, update)` from `changes()` (VERSION_ALL: the version in the
//! filter and `$inc`; none: neither), then the save and the stored document.
//! The gh-15912 include / exclude matrix is in `mongoose_concurrency_modes.rs`.

use crate::mongoose_support;

use std::collections::BTreeMap;

use mongoose_support::{expect_version, stored, with_parents};
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

// versioning.test.js: it('should persist correctly when optimisticConcurrency is true gh-10128')
// thing_2 sets the price it already has: nothing changed, and under
// optimistic_concurrency an unchanged stale copy still fails (save-rules.md
// worked example 5), with no modified paths.
#[tokio::test]
async fn should_persist_correctly_when_optimistic_concurrency_is_true() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "things", optimistic_concurrency)]
    struct Thing {
        #[serde(rename = "_id")]
        id: ObjectId,
        price: i32,
    }
    let t = TestDb::new().await;
    let id = ObjectId::new();
    let (m, mut thing) = create(&t, Thing { id, price: 1 }).await;
    thing.save().await.unwrap(); // unchanged and current: a read, no write
    assert_eq!(thing.version(), Some(0));
    let mut thing_1 = m.find_by_id(id).await.unwrap().unwrap();
    let mut thing_2 = m.find_by_id(id).await.unwrap().unwrap();
    thing_1.price = 2;
    assert_eq!(
        thing_1.changes(),
        Some((
            doc! { "_id": id, "__v": 0 },
            doc! { "$set": { "price": 2 }, "$inc": { "__v": 1 } }
        ))
    );
    thing_1.save().await.unwrap();
    assert_eq!(thing_1.version(), Some(1));
    thing_2.price = 1;
    assert_eq!(thing_2.changes(), None);
    expect_version(thing_2.save().await, id, 0, "");
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "price": 2, "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('throws VersionError when saving with no changes and optimistic concurrency is true (gh-11295)')
#[tokio::test]
async fn throws_version_error_when_saving_with_no_changes() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "robots", optimistic_concurrency)]
    struct Robot {
        #[serde(rename = "_id")]
        id: ObjectId,
        name: String,
    }
    let t = TestDb::new().await;
    let id = ObjectId::new();
    let (m, _) = create(
        &t,
        Robot {
            id,
            name: "WallE".into(),
        },
    )
    .await;
    let mut changes = m.find_one(doc! { "_id": id }).await.unwrap().unwrap();
    let mut other = m.find_one(doc! { "_id": id }).await.unwrap().unwrap();
    changes.name = "John".into();
    changes.save().await.unwrap();
    other.name = "WallE".into();
    expect_version(other.save().await, id, 0, "");
    assert_eq!(other.version(), Some(0));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "name": "John", "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('should support optimisticConcurrency being an array of strings')
// thing_2 sets the values it already has: no change, and with include(..)
// an unchanged save is not checked, so it succeeds (as in Mongoose).
#[tokio::test]
async fn should_support_optimistic_concurrency_being_an_array_of_strings() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "things", optimistic_concurrency(include(price, name)))]
    struct Thing {
        #[serde(rename = "_id")]
        id: ObjectId,
        price: i32,
        name: String,
    }
    let t = TestDb::new().await;
    let id = ObjectId::new();
    let (m, mut thing) = create(
        &t,
        Thing {
            id,
            price: 1,
            name: "Test".into(),
        },
    )
    .await;
    thing.save().await.unwrap();
    let mut thing_1 = m.find_by_id(id).await.unwrap().unwrap();
    let mut thing_2 = m.find_by_id(id).await.unwrap().unwrap();
    thing_1.price = 2;
    thing_1.name = "Testerson".into();
    assert_eq!(
        thing_1.changes(),
        Some((
            doc! { "_id": id, "__v": 0 },
            doc! { "$set": { "price": 2, "name": "Testerson" }, "$inc": { "__v": 1 } }
        ))
    );
    thing_1.save().await.unwrap();
    assert_eq!(thing_1.version(), Some(1));
    thing_2.price = 1;
    thing_2.name = "Test".into();
    assert_eq!(thing_2.changes(), None);
    thing_2.save().await.unwrap();
    assert_eq!(thing_2.version(), Some(0));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "price": 2, "name": "Testerson", "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('optimistic concurrency (gh-9001) (gh-5424)')
// (save-rules.md worked example 4.)
#[tokio::test]
async fn optimistic_concurrency_gh_9001() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "named", optimistic_concurrency)]
    struct M {
        #[serde(rename = "_id")]
        id: ObjectId,
        name: String,
    }
    let t = TestDb::new().await;
    let id = ObjectId::new();
    let (m, _) = create(
        &t,
        M {
            id,
            name: "foo".into(),
        },
    )
    .await;
    let mut d1 = m.find_one(doc! {}).await.unwrap().unwrap();
    let mut d2 = m.find_one(doc! {}).await.unwrap().unwrap();
    d1.name = "bar".into();
    d1.save().await.unwrap();
    d2.name = "qux".into();
    let pending = (
        doc! { "_id": id, "__v": 0 },
        doc! { "$set": { "name": "qux" }, "$inc": { "__v": 1 } },
    );
    assert_eq!(d2.changes(), Some(pending.clone()));
    expect_version(d2.save().await, id, 0, "name");
    assert_eq!(d2.changes(), Some(pending));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "name": "bar", "__v": 1 }
    );
    t.finish().await;
}

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

/// [`expected`] for an unchecked save under `parent`: the parent guard.
fn unchecked_under(id: ObjectId, update: BsonDoc, parent: &str) -> (BsonDoc, BsonDoc) {
    (with_parents(doc! { "_id": id }, &[parent]), update)
}

#[derive(Debug, Serialize, Deserialize, Document)]
#[odm(collection = "settings", optimistic_concurrency(include(settings)))]
struct SettingsInc {
    #[serde(rename = "_id")]
    id: ObjectId,
    settings: BTreeMap<String, String>,
    balance: i32,
}

#[derive(Debug, Serialize, Deserialize, Document)]
#[odm(collection = "settings", optimistic_concurrency(exclude(settings)))]
struct SettingsExc {
    #[serde(rename = "_id")]
    id: ObjectId,
    settings: BTreeMap<String, String>,
    balance: i32,
}

fn dark() -> BTreeMap<String, String> {
    BTreeMap::from([("theme".to_string(), "dark".to_string())])
}

// versioning.test.js: describe('optimisticConcurrency: string[]') it('sets VERSION_ALL when modifying a map key matching a wildcard path (gh-16383)')
// Nearest equivalent: odm has no wildcard paths; `include(settings)` covers
// every key of the map field.
#[tokio::test]
async fn oc_include_sets_version_all_when_modifying_a_map_key() {
    let t = TestDb::new().await;
    let id = ObjectId::new();
    let (m, mut u) = create(
        &t,
        SettingsInc {
            id,
            settings: dark(),
            balance: 100,
        },
    )
    .await;
    u.settings.insert("theme".into(), "light".into());
    assert_eq!(
        u.changes(),
        Some(expected(
            id,
            doc! { "$set": { "settings.theme": "light" } },
            true
        ))
    );
    u.save().await.unwrap();
    assert_eq!(u.version(), Some(1));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "settings": { "theme": "light" }, "balance": 100, "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: string[]') it('does not set version when modifying non-specified field with wildcard path (gh-16383)')
// Nearest equivalent: `include(settings)` instead of `settings.$*`.
#[tokio::test]
async fn oc_include_does_not_set_version_when_modifying_field_outside_the_map() {
    let t = TestDb::new().await;
    let id = ObjectId::new();
    let (m, mut u) = create(
        &t,
        SettingsInc {
            id,
            settings: dark(),
            balance: 100,
        },
    )
    .await;
    u.balance = 200;
    assert_eq!(
        u.changes(),
        Some(expected(id, doc! { "$set": { "balance": 200 } }, false))
    );
    u.save().await.unwrap();
    assert_eq!(u.version(), Some(0));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "settings": { "theme": "dark" }, "balance": 200, "__v": 0 }
    );
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: string[]') it('sets VERSION_ALL when modifying array element path matching a subdocument path (gh-16383)')
// Nearest equivalent: odm's include(..) names top-level fields, so
// `comments.text` becomes `include(comments)`. (The sibling test 'does not
// set version when modifying non-specified subdocument path' needs sub-paths
// and is not translated.)
#[tokio::test]
async fn oc_include_sets_version_all_when_modifying_array_element_path() {
    #[derive(Debug, Serialize, Deserialize)]
    struct Comment {
        #[serde(rename = "_id")]
        id: ObjectId,
        text: String,
        author: Option<String>,
    }
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "posts", optimistic_concurrency(include(comments)))]
    struct Post {
        #[serde(rename = "_id")]
        id: ObjectId,
        comments: Vec<Comment>,
        title: String,
    }
    let t = TestDb::new().await;
    let (id, cid) = (ObjectId::new(), ObjectId::new());
    let first = Comment {
        id: cid,
        text: "First".into(),
        author: None,
    };
    let (m, mut p) = create(
        &t,
        Post {
            id,
            comments: vec![first],
            title: "Hello".into(),
        },
    )
    .await;
    p.comments[0].text = "Edited".into();
    assert_eq!(
        p.changes(),
        Some(expected(
            id,
            doc! { "$set": { "comments.0.text": "Edited" } },
            true
        ))
    );
    p.save().await.unwrap();
    assert_eq!(p.version(), Some(1));
    let comment = doc! { "_id": cid, "text": "Edited", "author": null };
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "comments": [comment], "title": "Hello", "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: describe('optimisticConcurrency: { exclude: [] }') it('does not set version when modifying only a map key excluded by wildcard path (gh-16383)')
// Nearest equivalent: `exclude(settings)` instead of `settings.$*`.
#[tokio::test]
async fn oc_exclude_does_not_set_version_when_modifying_only_an_excluded_map_key() {
    let t = TestDb::new().await;
    let id = ObjectId::new();
    let (m, mut u) = create(
        &t,
        SettingsExc {
            id,
            settings: dark(),
            balance: 100,
        },
    )
    .await;
    u.settings.insert("theme".into(), "light".into());
    assert_eq!(
        u.changes(),
        Some(unchecked_under(
            id,
            doc! { "$set": { "settings.theme": "light" } },
            "settings"
        ))
    );
    u.save().await.unwrap();
    assert_eq!(u.version(), Some(0));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "settings": { "theme": "light" }, "balance": 100, "__v": 0 }
    );
    t.finish().await;
}

// model.test.js: it('should exclude nested subpaths when optimisticConcurrency exclude contains a parent path (gh-16054)')
#[tokio::test]
async fn oc_exclude_parent_path_excludes_nested_subpaths() {
    #[derive(Debug, Serialize, Deserialize)]
    struct Profile {
        #[serde(rename = "firstName")]
        first_name: String,
        #[serde(rename = "lastName")]
        last_name: String,
    }
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "profiles", optimistic_concurrency(exclude(profile)))]
    struct User {
        #[serde(rename = "_id")]
        id: ObjectId,
        profile: Profile,
        balance: i32,
    }
    let t = TestDb::new().await;
    let id = ObjectId::new();
    let profile = Profile {
        first_name: "Alice".into(),
        last_name: "Smith".into(),
    };
    let (m, mut u) = create(
        &t,
        User {
            id,
            profile,
            balance: 100,
        },
    )
    .await;
    u.profile.first_name = "Bob".into();
    assert_eq!(
        u.changes(),
        Some(unchecked_under(
            id,
            doc! { "$set": { "profile.firstName": "Bob" } },
            "profile"
        ))
    );
    u.save().await.unwrap();
    assert_eq!(u.version(), Some(0));
    let profile = doc! { "firstName": "Bob", "lastName": "Smith" };
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "profile": profile, "balance": 100, "__v": 0 }
    );
    t.finish().await;
}
