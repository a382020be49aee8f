//! Mongoose's `test/versioning.test.js`: whole-array rewrites, untyped
//! arrays, `skipVersioning`, copies and arrays nested in array elements,
//! translated to odm and run against the real server. Each test names the
//! `it(...)` it comes from. Where Mongoose's result differs from
//! save-rules.md, save-rules.md wins and the comment says so.

use crate::mongoose_support;

use std::future::IntoFuture;

use mongoose_support::{
    element_has, expect_version, guarded, in_place, item, items_bson, rewriting, stored,
    with_parents, Item,
};
use odm::bson::Bson;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

// versioning.test.js: it('increments version when modifying mixed array')
// Nearest equivalent: the Mixed path `mixed.arr` is a nested struct holding
// an untyped array (Vec<Bson>); no markModified is needed. Mongoose's
// markModified sends a $set of the array (ALL); the diff sees an append
// ($push, INC). Either way the version becomes 1.
#[tokio::test]
async fn increments_version_when_modifying_mixed_array() {
    #[derive(Debug, Default, Serialize, Deserialize)]
    struct Mixed {
        arr: Vec<Bson>,
    }
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "mixed")]
    struct M {
        #[serde(rename = "_id")]
        id: ObjectId,
        mixed: Mixed,
    }
    let t = TestDb::new().await;
    let m = M::model(&t.db);
    let id = ObjectId::new();
    let mut a = m
        .create(M {
            id,
            mixed: Mixed::default(),
        })
        .await
        .unwrap();
    a.mixed.arr.extend([
        Bson::Array(vec![10.into()]),
        doc! { "x": 1 }.into(),
        "test".into(),
    ]);
    assert_eq!(
        a.changes(),
        Some((
            with_parents(doc! { "_id": id }, &["mixed"]),
            doc! { "$push": { "mixed.arr": { "$each": [[10], { "x": 1 }, "test"] } }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(1));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "mixed": { "arr": [[10], { "x": 1 }, "test"] }, "__v": 1 }
    );
    t.finish().await;
}

#[derive(Debug, Serialize, Deserialize, Document)]
#[odm(collection = "comments")]
struct Commented {
    #[serde(rename = "_id")]
    id: ObjectId,
    comments: Vec<Item>,
}

// versioning.test.js: it('increments version when $set-ing an array')
// Nearest equivalent of b.markModified('comments') (a forced whole-array
// $set): b inserts a comment at the front, which is sent as a $set of the
// whole array, checked and bumped. The array starts with one comment so that
// the change is not a plain append.
#[tokio::test]
async fn increments_version_when_setting_an_array() {
    let t = TestDb::new().await;
    let m = Commented::model(&t.db);
    let id = ObjectId::new();
    let first = item("first");
    let mut a = m
        .create(Commented {
            id,
            comments: vec![first.clone()],
        })
        .await
        .unwrap();
    let mut b = m.find_by_id(id).await.unwrap().unwrap();
    let monkey = item("monkey");
    a.comments.push(monkey.clone());
    let front = item("front");
    b.comments.insert(0, front.clone());
    let whole = items_bson(&[front, first.clone()]);
    assert_eq!(
        b.changes(),
        Some((
            // The rewrite guard (save-rules.md, not in Mongoose): the
            // whole-array $set also requires the array this copy loaded.
            rewriting(
                doc! { "_id": id, "__v": 0 },
                "comments",
                items_bson(std::slice::from_ref(&first))
            ),
            doc! { "$set": { "comments": whole }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    expect_version(b.save().await, id, 0, "comments");
    assert_eq!(b.version(), Some(0));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "comments": items_bson(&[first, monkey]), "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('increments version and converts to $set when mixing $shift and $addToSet')
// The array starts with one comment, and the $shift removes it: appends plus
// the removal of an old element is a whole-array $set with the version
// checked and bumped, as in Mongoose. DIFFERENCE from an empty start (the
// Mongoose test): [] -> [aven, avengers] -> shift -> [avengers] is, by
// value, a plain append, which save-rules.md sends as $push (INC only).
#[tokio::test]
async fn mixing_shift_and_add_to_set_converts_to_set() {
    let t = TestDb::new().await;
    let m = Commented::model(&t.db);
    let id = ObjectId::new();
    let first = item("first");
    let loaded = items_bson(std::slice::from_ref(&first));
    let mut a = m
        .create(Commented {
            id,
            comments: vec![first],
        })
        .await
        .unwrap();
    let mut b = m.find_by_id(id).await.unwrap().unwrap();
    let (aven, avengers) = (item("aven"), item("avengers"));
    a.comments.push(aven.clone());
    a.comments.push(avengers.clone());
    let pushed = items_bson(&[aven.clone(), avengers.clone()]);
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": id },
            doc! { "$push": { "comments": { "$each": pushed.clone() } }, "$inc": { "__v": 1 } }
        ))
    );
    a.comments.remove(0);
    assert_eq!(
        a.changes(),
        Some((
            // The rewrite guard (save-rules.md, not in Mongoose): the
            // whole-array $set also requires the array this copy loaded.
            rewriting(doc! { "_id": id, "__v": 0 }, "comments", loaded.clone()),
            doc! { "$set": { "comments": pushed.clone() }, "$inc": { "__v": 1 } }
        ))
    );
    // b changed nothing: its save only checks that the document exists.
    assert_eq!(b.changes(), None);
    let (ra, rb) = tokio::join!(a.save().into_future(), b.save().into_future());
    ra.unwrap();
    rb.unwrap();
    assert_eq!((a.version(), b.version()), (Some(1), Some(0)));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "comments": pushed, "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('should not increment version for non-versioned fields')
// (skipVersioning: { dontVersionMe: true } is #[odm(skip_versioning)].)
// The two saves run at once, so the stored order of the two values is
// whichever landed first.
#[tokio::test]
async fn should_not_increment_version_for_non_versioned_fields() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "skipped")]
    struct M {
        #[serde(rename = "_id")]
        id: ObjectId,
        #[odm(skip_versioning)]
        #[serde(rename = "dontVersionMe")]
        dont_version_me: Vec<String>,
    }
    let t = TestDb::new().await;
    let m = M::model(&t.db);
    let id = ObjectId::new();
    let mut a = m
        .create(M {
            id,
            dont_version_me: vec![],
        })
        .await
        .unwrap();
    let mut b = m.find_by_id(id).await.unwrap().unwrap();
    a.dont_version_me.push("value1".into());
    b.dont_version_me.push("value2".into());
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": id },
            doc! { "$push": { "dontVersionMe": { "$each": ["value1"] } } }
        ))
    );
    let (ra, rb) = tokio::join!(a.save().into_future(), b.save().into_future());
    ra.unwrap();
    rb.unwrap();
    assert_eq!((a.version(), b.version()), (Some(0), Some(0)));
    let got = stored(&m, id).await;
    assert_eq!(got.get_i32("__v").ok(), Some(0));
    let mut values: Vec<&str> = got
        .get_array("dontVersionMe")
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    values.sort();
    assert_eq!(values, ["value1", "value2"]);
    assert_eq!(got.len(), 3);
    t.finish().await;
}

// versioning.test.js: it('gh-1898')
// Nearest equivalent of `m.tags[0] = 'eggs'; m.markModified('tags.0')`
// (a forced positional edit): tags[0] really changes. Together with the push
// that is a whole-array $set: the version is in the filter and bumped, as
// Mongoose asserts.
#[tokio::test]
async fn gh_1898_push_and_positional_edit() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "breakfast")]
    struct M {
        #[serde(rename = "_id")]
        id: ObjectId,
        tags: Vec<String>,
        name: Option<String>,
    }
    let t = TestDb::new().await;
    let m = M::model(&t.db);
    let id = ObjectId::new();
    let mut d = m
        .create(M {
            id,
            tags: vec!["eggs".into()],
            name: None,
        })
        .await
        .unwrap();
    d.tags.push("bacon".into());
    d.name = Some("breakfast".into());
    d.tags[0] = "EGGS".into();
    assert_eq!(
        d.changes(),
        Some((
            // The rewrite guard (save-rules.md, not in Mongoose): the
            // whole-array $set also requires the array this copy loaded.
            rewriting(doc! { "_id": id, "__v": 0 }, "tags", vec!["eggs"]),
            doc! { "$set": { "tags": ["EGGS", "bacon"], "name": "breakfast" }, "$inc": { "__v": 1 } }
        ))
    );
    d.save().await.unwrap();
    assert_eq!(d.version(), Some(1));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "tags": ["EGGS", "bacon"], "name": "breakfast", "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('pull doesnt add version where clause (gh-6190)')
#[tokio::test]
async fn pull_doesnt_add_version_where_clause() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "users")]
    struct User {
        #[serde(rename = "_id")]
        id: ObjectId,
        #[serde(rename = "unreadPosts")]
        unread_posts: Vec<ObjectId>,
    }
    let t = TestDb::new().await;
    let m = User::model(&t.db);
    let (id, id1, id2) = (ObjectId::new(), ObjectId::new(), ObjectId::new());
    m.create(User {
        id,
        unread_posts: vec![id1, id2],
    })
    .await
    .unwrap();
    let mut d1 = m.find_by_id(id).await.unwrap().unwrap();
    let mut d2 = m.find_by_id(id).await.unwrap().unwrap();
    d1.unread_posts.retain(|p| *p != id1);
    assert_eq!(
        d1.changes(),
        Some((
            // No version in the filter; the removal guard instead.
            guarded(doc! { "_id": id }, "unreadPosts", &[(id1.into(), 1)]),
            doc! { "$pullAll": { "unreadPosts": [id1] }, "$inc": { "__v": 1 } }
        ))
    );
    d1.save().await.unwrap();
    d2.unread_posts.retain(|p| *p != id2);
    assert_eq!(
        d2.changes(),
        Some((
            guarded(doc! { "_id": id }, "unreadPosts", &[(id2.into(), 1)]),
            doc! { "$pullAll": { "unreadPosts": [id2] }, "$inc": { "__v": 1 } }
        ))
    );
    d2.save().await.unwrap();
    assert_eq!((d1.version(), d2.version()), (Some(1), Some(1)));
    let empty: Vec<ObjectId> = vec![];
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "unreadPosts": empty, "__v": 2 }
    );
    t.finish().await;
}

// versioning.test.js: it('copying doc works (gh-5779)')
// Nearest equivalent of `new M(m)`: a second tracked copy hydrated from the
// first one's stored BSON.
#[tokio::test]
async fn copying_doc_works() {
    #[derive(Debug, Clone, Serialize, Deserialize)]
    struct SubA {
        #[serde(rename = "_id")]
        id: ObjectId,
        a: i32,
    }
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "copies")]
    struct M {
        #[serde(rename = "_id")]
        id: ObjectId,
        subdocs: Vec<SubA>,
    }
    let t = TestDb::new().await;
    let m = M::model(&t.db);
    let id = ObjectId::new();
    m.create(M {
        id,
        subdocs: vec![],
    })
    .await
    .unwrap();
    let raw = odm::bson::RawDocumentBuf::try_from(&stored(&m, id).await).unwrap();
    let mut m2 = m.hydrate(&raw).unwrap();
    assert_eq!(m2.version(), Some(0));
    let sid = ObjectId::new();
    m2.subdocs.push(SubA { id: sid, a: 2 });
    m2.save().await.unwrap();
    m2.subdocs[0].a = 3;
    assert_eq!(
        m2.changes(),
        Some((
            // odm's positional guard: the same sub-document, `a` as saved.
            in_place(
                doc! { "_id": id, "__v": 1 },
                vec![element_has(
                    "subdocs",
                    0,
                    &[("_id", Some(sid.into())), ("a", Some(2.into()))]
                )]
            ),
            doc! { "$set": { "subdocs.0.a": 3 } }
        ))
    );
    m2.save().await.unwrap();
    assert_eq!(m2.version(), Some(1));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "subdocs": [{ "_id": sid, "a": 3 }], "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('adds version to filter if pushing to a nested array (gh-11108)')
#[tokio::test]
async fn adds_version_to_filter_if_pushing_to_a_nested_array() {
    #[derive(Debug, Clone, Serialize, Deserialize)]
    struct Comment {
        #[serde(rename = "_id")]
        id: ObjectId,
        #[serde(rename = "likedBy")]
        liked_by: Vec<String>,
    }
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "liked")]
    struct Test {
        #[serde(rename = "_id")]
        id: ObjectId,
        comments: Vec<Comment>,
    }
    let t = TestDb::new().await;
    let m = Test::model(&t.db);
    let (id, c0, c1) = (ObjectId::new(), ObjectId::new(), ObjectId::new());
    let liked = vec!["Friends".to_string(), "Family".to_string()];
    m.create(Test {
        id,
        comments: vec![Comment {
            id: c0,
            liked_by: liked,
        }],
    })
    .await
    .unwrap();
    let mut post1 = m.find_by_id(id).await.unwrap().unwrap();
    let mut post2 = m.find_by_id(id).await.unwrap().unwrap();
    // post1 replaces the comment: another `_id` at position 0, so the
    // whole array is set, checked and bumped (as Mongoose's assignment).
    post1.comments = vec![Comment {
        id: c1,
        liked_by: vec!["test".into()],
    }];
    assert_eq!(
        post1.changes(),
        Some((
            // The rewrite guard (save-rules.md, not in Mongoose): the
            // whole-array $set also requires the array this copy loaded.
            rewriting(
                doc! { "_id": id, "__v": 0 },
                "comments",
                vec![doc! { "_id": c0, "likedBy": ["Friends", "Family"] }],
            ),
            doc! { "$set": { "comments": [{ "_id": c1, "likedBy": ["test"] }] }, "$inc": { "__v": 1 } }
        ))
    );
    post1.save().await.unwrap();
    post2.comments[0].liked_by.push("Some User".into());
    assert_eq!(
        post2.changes(),
        Some((
            // odm's positional guard: the push lands in the comment this
            // copy loaded at 0.
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_has("comments", 0, &[("_id", Some(c0.into()))])]
            ),
            doc! { "$push": { "comments.0.likedBy": { "$each": ["Some User"] } }, "$inc": { "__v": 1 } }
        ))
    );
    expect_version(post2.save().await, id, 0, "comments.0.likedBy");
    let mut post3 = m.find_by_id(id).await.unwrap().unwrap();
    post3.comments[0].liked_by.push("Some User".into());
    post3.save().await.unwrap();
    assert_eq!(post3.version(), Some(2));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "comments": [{ "_id": c1, "likedBy": ["test", "Some User"] }], "__v": 2 }
    );
    t.finish().await;
}
