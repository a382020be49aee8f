//! Mongoose's `test/versioning.test.js`: two copies of one document editing
//! the same array (pushes, pulls, in-place edits, `$pop`), translated to odm
//! and run against the real server. Each test names the `it(...)` it comes
//! from. Where Mongoose's result differs from save-rules.md, save-rules.md wins
//! and the comment says so.

use crate::mongoose_support;

use std::collections::BTreeMap;
use std::future::IntoFuture;

use mongoose_support::{
    element_has, element_is, expect_version, guarded, in_place, rewriting, stored, with_parents,
};
use odm::bson::Bson;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

/// A sub-document with its own `_id`, as Mongoose gives every array sub-doc.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Sub {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
}

fn sub(title: &str) -> Sub {
    Sub {
        id: ObjectId::new(),
        title: title.into(),
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Meta {
    numbers: Vec<i32>,
    nested: Vec<Sub>,
}

/// The `meta.numbers` / `meta.nested` part of Mongoose's BlogPost schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "blogposts")]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
    meta: Meta,
}

async fn post(t: &TestDb, meta: Meta) -> (Model<Post>, Doc<Post>, Doc<Post>) {
    let posts = Post::model(&t.db);
    let id = ObjectId::new();
    let a = posts.create(Post { id, meta }).await.unwrap();
    let b = posts.find_by_id(id).await.unwrap().unwrap();
    assert_eq!((a.version(), b.version()), (Some(0), Some(0)));
    (posts, a, b)
}

fn numbers(n: &[i32]) -> Meta {
    Meta {
        numbers: n.to_vec(),
        nested: vec![],
    }
}

/// Titles and ids of `meta.nested` as stored.
fn nested_bson(subs: &[Sub]) -> Vec<odm::bson::Document> {
    subs.iter()
        .map(|s| doc! { "_id": s.id, "title": &s.title })
        .collect()
}

// versioning.test.js: describe('doc.increment()') it('works without any other changes (gh-1475)')
#[tokio::test]
async fn increment_works_without_any_other_changes() {
    let t = TestDb::new().await;
    let (posts, mut a, _) = post(&t, Meta::default()).await;
    let id = a.id;
    assert_eq!(a.changes(), None);
    a.increment();
    assert_eq!(
        a.changes(),
        Some((doc! { "_id": id, "__v": 0 }, doc! { "$inc": { "__v": 1 } }))
    );
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(1));
    assert_eq!(a.changes(), None);
    assert_eq!(
        posts.find_by_id(id).await.unwrap().unwrap().version(),
        Some(1)
    );
    assert_eq!(stored(&posts, id).await.get_i32("__v").ok(), Some(1));
    t.finish().await;
}

// versioning.test.js: it('allows concurrent push')
#[tokio::test]
async fn allows_concurrent_push() {
    let t = TestDb::new().await;
    let (posts, mut a, mut b) = post(&t, numbers(&[])).await;
    let id = a.id;
    a.meta.numbers.push(2);
    b.meta.numbers.push(4);
    assert_eq!(
        a.changes(),
        Some((
            with_parents(doc! { "_id": id }, &["meta"]),
            doc! { "$push": { "meta.numbers": { "$each": [2] } }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    b.save().await.unwrap();
    assert_eq!((a.version(), b.version()), (Some(1), Some(1)));
    assert_eq!(
        stored(&posts, id).await,
        doc! { "_id": id, "meta": { "numbers": [2, 4], "nested": [] }, "__v": 2 }
    );
    t.finish().await;
}

// versioning.test.js: it('allows concurrent push and pull')
#[tokio::test]
async fn allows_concurrent_push_and_pull() {
    let t = TestDb::new().await;
    let (posts, mut a, mut b) = post(&t, numbers(&[2, 4, 6, 8])).await;
    let id = a.id;
    a.meta.numbers.retain(|n| *n != 2);
    b.meta.numbers.push(10);
    assert_eq!(
        a.changes(),
        Some((
            guarded(
                with_parents(doc! { "_id": id }, &["meta"]),
                "meta.numbers",
                &[(2.into(), 1)]
            ),
            doc! { "$pullAll": { "meta.numbers": [2] }, "$inc": { "__v": 1 } }
        ))
    );
    assert_eq!(
        b.changes(),
        Some((
            with_parents(doc! { "_id": id }, &["meta"]),
            doc! { "$push": { "meta.numbers": { "$each": [10] } }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    b.save().await.unwrap();
    assert_eq!(
        stored(&posts, id).await,
        doc! { "_id": id, "meta": { "numbers": [4, 6, 8, 10], "nested": [] }, "__v": 2 }
    );
    t.finish().await;
}

// versioning.test.js: it('throws if you set a positional path after pulling')
// (save-rules.md worked example 2.)
#[tokio::test]
async fn throws_if_you_set_a_positional_path_after_pulling() {
    let t = TestDb::new().await;
    let (posts, mut a, mut b) = post(&t, numbers(&[2, 4, 6, 8])).await;
    let id = a.id;
    a.meta.numbers.retain(|n| *n != 4 && *n != 6);
    b.meta.numbers[2] = 7;
    let b_changes = (
        // odm's positional guard: the element still holds the 6 loaded.
        in_place(
            doc! { "_id": id, "__v": 0 },
            vec![element_is("meta.numbers", 2, 6)],
        ),
        doc! { "$set": { "meta.numbers.2": 7 } },
    );
    assert_eq!(b.changes(), Some(b_changes.clone()));
    a.save().await.unwrap();
    expect_version(b.save().await, id, 0, "meta.numbers.2");
    // The failed save leaves b as it was.
    assert_eq!(b.version(), Some(0));
    assert_eq!(b.changes(), Some(b_changes));
    assert_eq!(
        stored(&posts, id).await,
        doc! { "_id": id, "meta": { "numbers": [2, 8], "nested": [] }, "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('allows pull/push after $set')
// `arr` is an untyped array (`[]` in Mongoose): a Vec<Bson>.
// DIFFERENCE: Mongoose records b's pull(10) + addToSet("using set") as two
// atomics on one path and sends a $set of the whole array (ALL): b's save
// overwrites a's edit ("last write wins", stored ["test1", "using set"]).
// save-rules.md diffs values: ["test1", 10] -> ["test1", "using set"] is
// element 1 changed in place (WHERE only), so both edits land and the
// version stays 0.
#[tokio::test]
async fn allows_pull_push_after_set() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "mixedarr")]
    struct M {
        #[serde(rename = "_id")]
        id: ObjectId,
        arr: Vec<Bson>,
    }
    let t = TestDb::new().await;
    let m = M::model(&t.db);
    let id = ObjectId::new();
    let mut a = m
        .create(M {
            id,
            arr: vec!["test1".into(), 10.into()],
        })
        .await
        .unwrap();
    let mut b = m.find_by_id(id).await.unwrap().unwrap();
    a.arr[0] = "not an array".into();
    // odm's positional guard: each element as its copy loaded it (a and b
    // edit different elements, so both land).
    assert_eq!(
        a.changes(),
        Some((
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_is("arr", 0, "test1")]
            ),
            doc! { "$set": { "arr.0": "not an array" } }
        ))
    );
    b.arr.retain(|v| v != &Bson::Int32(10));
    b.arr.push("using set".into());
    assert_eq!(
        b.changes(),
        Some((
            in_place(doc! { "_id": id, "__v": 0 }, vec![element_is("arr", 1, 10)]),
            doc! { "$set": { "arr.1": "using set" } }
        ))
    );
    a.save().await.unwrap();
    b.save().await.unwrap();
    assert_eq!((a.version(), b.version()), (Some(0), Some(0)));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "arr": ["not an array", "using set"], "__v": 0 }
    );
    t.finish().await;
}

// versioning.test.js: it('should add version to where clause')
#[tokio::test]
async fn should_add_version_to_where_clause() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "nestedarr")]
    struct M {
        #[serde(rename = "_id")]
        id: ObjectId,
        arr: Vec<Vec<String>>,
    }
    let t = TestDb::new().await;
    let m = M::model(&t.db);
    let id = ObjectId::new();
    let mut a = m
        .create(M {
            id,
            arr: vec![vec!["before update".into()]],
        })
        .await
        .unwrap();
    a.arr[0][0] = "updated".into();
    // DIFFERENCE: Mongoose sends `arr.0.0` with the version in the filter.
    // No element of the inner array kept its position, which a net diff
    // cannot tell from an assignment, so odm takes the reading that bumps
    // (save-rules.md): the inner array is set, checked and bumped.
    assert_eq!(
        a.changes(),
        Some((
            // The rewrite guard (save-rules.md, not in Mongoose): the
            // rewrite also requires what this copy loaded there.
            rewriting(doc! { "_id": id, "__v": 0 }, "arr.0", vec!["before update"]),
            doc! { "$set": { "arr.0": ["updated"] }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(1));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "arr": [["updated"]], "__v": 1 }
    );
    // Beyond the Mongoose test: a push into the inner array is positional
    // (`arr.0`), so it is checked and bumped, as Mongoose's `$push` there.
    a.arr[0].push("more".into());
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": id, "__v": 1 },
            doc! { "$push": { "arr.0": { "$each": ["more"] } }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(2));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "arr": [["updated", "more"]], "__v": 2 }
    );
    t.finish().await;
}

// versioning.test.js: it('$set after pull/push throws')
// DIFFERENCE: a pulls "using set", pushes "woot" and "woot2", pops "woot2":
// Mongoose records the atomics and sends a $set of the whole array with
// `$inc`, so b's positional $set fails. save-rules.md diffs values:
// ["test1","using set"] -> ["test1","woot"] is element 1 changed in place,
// WHERE only; the version does not move and b's save succeeds.
#[tokio::test]
async fn set_after_pull_push() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "strarr")]
    struct M {
        #[serde(rename = "_id")]
        id: ObjectId,
        arr: Vec<String>,
    }
    let t = TestDb::new().await;
    let m = M::model(&t.db);
    let id = ObjectId::new();
    let start = vec!["test1".to_string(), "using set".to_string()];
    let mut a = m.create(M { id, arr: start }).await.unwrap();
    let mut b = m.find_by_id(id).await.unwrap().unwrap();
    b.arr[0] = "not an array".into();
    a.arr.retain(|v| v != "using set");
    a.arr.extend(["woot".to_string(), "woot2".to_string()]);
    a.arr.pop();
    assert_eq!(
        a.changes(),
        Some((
            // odm's positional guard: element 1 as loaded. b edits element
            // 0, so both land.
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_is("arr", 1, "using set")]
            ),
            doc! { "$set": { "arr.1": "woot" } }
        ))
    );
    a.save().await.unwrap();
    b.save().await.unwrap();
    assert_eq!((a.version(), b.version()), (Some(0), Some(0)));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "arr": ["not an array", "woot"], "__v": 0 }
    );
    t.finish().await;
}

// versioning.test.js: it('doesnt persist conflicting changes')
// DIFFERENCE for sub-documents with an `_id` (Mongoose's default): `$pop`
// is ALL in Mongoose, so b fails; save-rules.md sends the removal of the last
// element as `$pull` by `_id` (INC only), so b's identical pull succeeds and
// the version moves twice. Without `_id` the removal is a whole-array $set
// (ALL) and b fails as in Mongoose.
#[tokio::test]
async fn doesnt_persist_conflicting_changes() {
    let t = TestDb::new().await;
    let subs = vec![sub("test1"), sub("test2")];
    let (posts, mut a, mut b) = post(
        &t,
        Meta {
            numbers: vec![],
            nested: subs.clone(),
        },
    )
    .await;
    let id = a.id;
    a.meta.nested.pop();
    b.meta.nested.pop();
    let pull = doc! { "$pull": { "meta.nested": { "_id": { "$in": [subs[1].id] } } }, "$inc": { "__v": 1 } };
    assert_eq!(
        a.changes(),
        Some((with_parents(doc! { "_id": id }, &["meta"]), pull))
    );
    a.save().await.unwrap();
    b.save().await.unwrap();
    let left = nested_bson(&subs[..1]);
    assert_eq!(
        stored(&posts, id).await,
        doc! { "_id": id, "meta": { "numbers": [], "nested": left }, "__v": 2 }
    );

    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "noids")]
    struct NoIds {
        #[serde(rename = "_id")]
        id: ObjectId,
        nested: Vec<BTreeMap<String, String>>,
    }
    let m = NoIds::model(&t.db);
    let titles: Vec<_> = ["test1", "test2"]
        .iter()
        .map(|s| BTreeMap::from([("title".to_string(), s.to_string())]))
        .collect();
    let mut a = m.create(NoIds { id, nested: titles }).await.unwrap();
    let mut b = m.find_by_id(id).await.unwrap().unwrap();
    a.nested.pop();
    b.nested.pop();
    assert_eq!(
        b.changes(),
        Some((
            // The rewrite guard (save-rules.md, not in Mongoose): the
            // rewrite also requires what this copy loaded there.
            rewriting(
                doc! { "_id": id, "__v": 0 },
                "nested",
                vec![doc! { "title": "test1" }, doc! { "title": "test2" }],
            ),
            doc! { "$set": { "nested": [{ "title": "test1" }] }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    expect_version(b.save().await, id, 0, "nested");
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "nested": [{ "title": "test1" }], "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('increments version on push')
#[tokio::test]
async fn increments_version_on_push() {
    let t = TestDb::new().await;
    let (posts, mut a, mut b) = post(&t, Meta::default()).await;
    let id = a.id;
    let (s1, s2, s3) = (sub("test1"), sub("test2"), sub("test3"));
    a.meta.nested.push(s1.clone());
    a.meta.nested.push(s2.clone());
    b.meta.nested.push(s3.clone());
    let each = nested_bson(&[s1.clone(), s2.clone()]);
    assert_eq!(
        a.changes(),
        Some((
            with_parents(doc! { "_id": id }, &["meta"]),
            doc! { "$push": { "meta.nested": { "$each": each } }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    b.save().await.unwrap();
    let all = nested_bson(&[s1, s2, s3]);
    assert_eq!(
        stored(&posts, id).await,
        doc! { "_id": id, "meta": { "numbers": [], "nested": all }, "__v": 2 }
    );
    t.finish().await;
}

// versioning.test.js: it('does not increment version when setting nested paths')
// (save-rules.md worked example 3.) Both saves run at once, as Promise.all.
#[tokio::test]
async fn does_not_increment_version_when_setting_nested_paths() {
    let t = TestDb::new().await;
    let subs = vec![sub("test1"), sub("test2"), sub("test3")];
    let (posts, mut a, mut b) = post(
        &t,
        Meta {
            numbers: vec![],
            nested: subs.clone(),
        },
    )
    .await;
    let id = a.id;
    a.meta.nested[2].title = "two".into();
    b.meta.nested[0].title = "zero".into();
    b.meta.nested[1].title = "sub one".into();
    let loaded = |i: usize| {
        element_has(
            "meta.nested",
            i as i32,
            &[
                ("_id", Some(subs[i].id.into())),
                ("title", Some(subs[i].title.clone().into())),
            ],
        )
    };
    assert_eq!(
        b.changes(),
        Some((
            // odm's positional guard: each sub-document and its title as
            // loaded; a edits another one, so both land.
            in_place(doc! { "_id": id, "__v": 0 }, vec![loaded(0), loaded(1)]),
            doc! { "$set": { "meta.nested.0.title": "zero", "meta.nested.1.title": "sub one" } }
        ))
    );
    let (ra, rb) = tokio::join!(a.save().into_future(), b.save().into_future());
    ra.unwrap();
    rb.unwrap();
    assert_eq!((a.version(), b.version()), (Some(0), Some(0)));
    let mut want = subs;
    want[0].title = "zero".into();
    want[1].title = "sub one".into();
    want[2].title = "two".into();
    let want = nested_bson(&want);
    assert_eq!(
        stored(&posts, id).await,
        doc! { "_id": id, "meta": { "numbers": [], "nested": want }, "__v": 0 }
    );
    t.finish().await;
}
