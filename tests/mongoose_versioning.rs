//! Mongoose's `test/versioning.test.js`: the version key and its options,
//! documents stored without a version, and how version effects of one save
//! combine (gh-15888), translated to odm and run against the real server.
//! Each test names the `it(...)` it comes from. Where Mongoose's result
//! differs from save-rules.md, save-rules.md wins and the comment says so.
//! The other scenarios of that file are in `mongoose_array_versioning.rs`,
//! `mongoose_array_rewrites.rs` and `mongoose_concurrency*.rs`.

use crate::mongoose_support;

use std::collections::BTreeMap;

use mongoose_support::{
    element_has, element_is, expect_version, guarded, in_place, item, items_bson, rewriting,
    stored, with_parents, Item,
};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

// versioning.test.js: it('versioning without version key')
// Nearest equivalent: Mongoose leaves `__v` out with a projection; odm has
// none, so the stored document simply has no `__v`. An in-place edit then
// puts no version term in the filter (odm's positional guard still requires
// the element's value as loaded).
#[tokio::test]
async fn versioning_without_version_key() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "unselected")]
    struct V {
        #[serde(rename = "_id")]
        id: ObjectId,
        numbers: Vec<i32>,
        comments: Vec<BTreeMap<String, String>>,
    }
    let t = TestDb::new().await;
    let m = V::model(&t.db);
    let id = ObjectId::new();
    let raw = doc! { "_id": id, "numbers": [3, 4, 5], "comments": [{ "title": "does it work?" }, { "title": "hi" }] };
    m.collection().insert_one(raw).await.unwrap();
    let mut d = m.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(d.version(), None);
    d.comments[0].insert("title".into(), "no version was included".into());
    assert_eq!(
        d.changes(),
        Some((
            in_place(
                doc! { "_id": id },
                vec![element_has(
                    "comments",
                    0,
                    &[("title", Some("does it work?".into()))]
                )]
            ),
            doc! { "$set": { "comments.0.title": "no version was included" } }
        ))
    );
    d.save().await.unwrap();
    assert_eq!(d.version(), None);
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "numbers": [3, 4, 5], "comments": [{ "title": "no version was included" }, { "title": "hi" }] }
    );
    t.finish().await;
}

// versioning.test.js: it('version works with strict docs')
#[tokio::test]
async fn version_works_with_strict_docs() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "strict")]
    struct S {
        #[serde(rename = "_id")]
        id: ObjectId,
        str: Vec<String>,
    }
    let t = TestDb::new().await;
    let m = S::model(&t.db);
    let id = ObjectId::new();
    let words = ["death", "to", "smootchy"].map(String::from).to_vec();
    m.create(S { id, str: words }).await.unwrap();
    assert_eq!(stored(&m, id).await.get_i32("__v").ok(), Some(0));
    let mut d = m.find_by_id(id).await.unwrap().unwrap();
    d.str.retain(|w| w != "death"); // Mongoose: m.str.pull('death')
    assert_eq!(
        d.changes(),
        Some((
            guarded(doc! { "_id": id }, "str", &[("death".into(), 1)]),
            doc! { "$pullAll": { "str": ["death"] }, "$inc": { "__v": 1 } }
        ))
    );
    d.save().await.unwrap();
    assert_eq!(d.version(), Some(1));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "str": ["to", "smootchy"], "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('version works with existing unversioned docs')
// DIFFERENCE: Mongoose's `splice(1, 1, 10)` is an array atomic that sets
// the whole array with `$inc`. save-rules.md diffs values: [1,2,3] -> [1,10,3]
// is element 1 changed in place, a positional `$set` (WHERE only, and no
// version term since none was stored). A splice that is not in place
// (insert in the middle) then gives the `$inc`, and the stored version
// becomes 1, as in Mongoose.
#[tokio::test]
async fn version_works_with_existing_unversioned_docs() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "unversioned")]
    struct V {
        #[serde(rename = "_id")]
        id: ObjectId,
        title: String,
        numbers: Vec<i32>,
    }
    let t = TestDb::new().await;
    let m = V::model(&t.db);
    let id = ObjectId::new();
    m.collection()
        .insert_one(doc! { "_id": id, "title": "unversioned", "numbers": [1, 2, 3] })
        .await
        .unwrap();
    let mut d = m
        .find_one(doc! { "title": "unversioned" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(d.version(), None);
    d.numbers[1] = 10;
    assert_eq!(
        d.changes(),
        Some((
            in_place(doc! { "_id": id }, vec![element_is("numbers", 1, 2)]),
            doc! { "$set": { "numbers.1": 10 } }
        ))
    );
    d.save().await.unwrap();
    assert_eq!(d.version(), None);
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "title": "unversioned", "numbers": [1, 10, 3] }
    );

    d.numbers.insert(1, 11);
    assert_eq!(
        d.changes(),
        Some((
            // The rewrite guard (save-rules.md, not in Mongoose): the
            // rewrite also requires what this copy loaded there.
            rewriting(doc! { "_id": id }, "numbers", vec![1, 10, 3]),
            doc! { "$set": { "numbers": [1, 11, 10, 3] }, "$inc": { "__v": 1 } }
        ))
    );
    d.save().await.unwrap();
    assert_eq!(d.version(), Some(1));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "title": "unversioned", "numbers": [1, 11, 10, 3], "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('versionKey is configurable')
// Extended with an increment() so the configured key is also the one checked
// and bumped.
#[tokio::test]
async fn version_key_is_configurable() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "configured", version_key = "lolwat")]
    struct C {
        #[serde(rename = "_id")]
        id: ObjectId,
        configured: bool,
    }
    let t = TestDb::new().await;
    let m = C::model(&t.db);
    let id = ObjectId::new();
    m.create(C {
        id,
        configured: true,
    })
    .await
    .unwrap();
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "configured": true, "lolwat": 0 }
    );
    let mut d = m.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(d.version(), Some(0));
    d.increment();
    assert_eq!(
        d.changes(),
        Some((
            doc! { "_id": id, "lolwat": 0 },
            doc! { "$inc": { "lolwat": 1 } }
        ))
    );
    d.save().await.unwrap();
    assert_eq!(d.version(), Some(1));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "configured": true, "lolwat": 1 }
    );
    t.finish().await;
}

// versioning.test.js: it('can be disabled')
// The array starts with two values so that `x.0` still exists after the
// pull (Mongoose sets `x.0` on the emptied array).
#[tokio::test]
async fn versioning_can_be_disabled() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "unversioned_model", versioning = false)]
    struct M {
        #[serde(rename = "_id")]
        id: ObjectId,
        x: Vec<String>,
    }
    let t = TestDb::new().await;
    let m = M::model(&t.db);
    let id = ObjectId::new();
    let mut d = m
        .create(M {
            id,
            x: vec!["hi".into(), "there".into()],
        })
        .await
        .unwrap();
    assert_eq!(d.version(), None);
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "x": ["hi", "there"] }
    );
    d.x.retain(|v| v != "hi");
    assert_eq!(
        d.changes(),
        Some((
            guarded(doc! { "_id": id }, "x", &[("hi".into(), 1)]),
            doc! { "$pullAll": { "x": ["hi"] } }
        ))
    );
    d.save().await.unwrap();
    // DIFFERENCE: Mongoose sends `x.0`. The only element was replaced,
    // which reads as an assignment: the whole array (no version to check).
    d.x[0] = "updated".into();
    assert_eq!(
        d.changes(),
        Some((doc! { "_id": id }, doc! { "$set": { "x": ["updated"] } }))
    );
    d.save().await.unwrap();
    assert_eq!(d.version(), None);
    assert_eq!(stored(&m, id).await, doc! { "_id": id, "x": ["updated"] });
    t.finish().await;
}

// versioning.test.js: it('works with numbericAlpha paths')
// Nearest equivalent of the Mixed path `mixed.4a`: a map field.
#[tokio::test]
async fn works_with_numeric_alpha_paths() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "numalpha")]
    struct M {
        #[serde(rename = "_id")]
        id: ObjectId,
        mixed: BTreeMap<String, i32>,
    }
    let t = TestDb::new().await;
    let m = M::model(&t.db);
    let id = ObjectId::new();
    let mut d = m
        .create(M {
            id,
            mixed: BTreeMap::new(),
        })
        .await
        .unwrap();
    d.mixed.insert("4a".into(), 2);
    assert_eq!(
        d.changes(),
        Some((
            with_parents(doc! { "_id": id }, &["mixed"]),
            doc! { "$set": { "mixed.4a": 2 } }
        ))
    );
    d.save().await.unwrap();
    assert_eq!(d.version(), Some(0));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "mixed": { "4a": 2 }, "__v": 0 }
    );
    t.finish().await;
}

/// gh-15888's context: three items with ids and two tags.
#[derive(Debug, Serialize, Deserialize, Document)]
#[odm(collection = "accumulation")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    items: Vec<Item>,
    tags: Vec<String>,
}

async fn accumulation(t: &TestDb) -> (Model<User>, Doc<User>, Vec<Item>) {
    let m = User::model(&t.db);
    let items = vec![item("item1"), item("item2"), item("item3")];
    let tags = vec!["tag1".to_string(), "tag2".to_string()];
    let user = m
        .create(User {
            id: ObjectId::new(),
            items: items.clone(),
            tags,
        })
        .await
        .unwrap();
    (m, user, items)
}

// versioning.test.js: describe('version mode accumulation (gh-15888)')
// it('combines VERSION_INC and VERSION_WHERE when pull and index set happen together')
#[tokio::test]
async fn combines_inc_and_where_when_pull_and_index_set_happen_together() {
    let t = TestDb::new().await;
    let (m, mut user, items) = accumulation(&t).await;
    let id = user.id;
    user.items.remove(0); // pull by _id: INC
    user.tags[0] = "modified".into(); // positional: WHERE
    assert_eq!(
        user.changes(),
        Some((
            // odm's positional guard: tags.0 still as loaded.
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_is("tags", 0, "tag1")]
            ),
            doc! {
                "$set": { "tags.0": "modified" },
                "$pull": { "items": { "_id": { "$in": [items[0].id] } } },
                "$inc": { "__v": 1 },
            }
        ))
    );
    user.save().await.unwrap();
    assert_eq!(user.version(), Some(1));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "items": items_bson(&items[1..]), "tags": ["modified", "tag2"], "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: describe('version mode accumulation (gh-15888)')
// it('rejects stale update after pull when another client modifies by index')
#[tokio::test]
async fn rejects_stale_update_after_pull_when_another_client_modifies_by_index() {
    let t = TestDb::new().await;
    let (m, user, items) = accumulation(&t).await;
    let id = user.id;
    let mut a = m.find_by_id(id).await.unwrap().unwrap();
    let mut b = m.find_by_id(id).await.unwrap().unwrap();
    a.items.remove(0);
    a.tags[0] = "modified".into();
    a.save().await.unwrap();
    b.items[1].name = "updated".into();
    assert_eq!(
        b.changes(),
        Some((
            // odm's positional guard: the same item, its name as loaded.
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_has(
                    "items",
                    1,
                    &[
                        ("_id", Some(items[1].id.into())),
                        ("name", Some("item2".into()))
                    ]
                )]
            ),
            doc! { "$set": { "items.1.name": "updated" } }
        ))
    );
    expect_version(b.save().await, id, 0, "items.1.name");
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "items": items_bson(&items[1..]), "tags": ["modified", "tag2"], "__v": 1 }
    );
    t.finish().await;
}

// versioning.test.js: describe('version mode accumulation (gh-15888)')
// it('combines VERSION_WHERE and VERSION_INC regardless of operation order')
#[tokio::test]
async fn combines_where_and_inc_regardless_of_operation_order() {
    let t = TestDb::new().await;
    let (m, mut user, mut items) = accumulation(&t).await;
    let id = user.id;
    user.tags[0] = "modified".into(); // WHERE
    let item4 = item("item4");
    user.items.push(item4.clone()); // INC
    assert_eq!(
        user.changes(),
        Some((
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_is("tags", 0, "tag1")]
            ),
            doc! {
                "$set": { "tags.0": "modified" },
                "$push": { "items": { "$each": items_bson(std::slice::from_ref(&item4)) } },
                "$inc": { "__v": 1 },
            }
        ))
    );
    user.save().await.unwrap();
    assert_eq!(user.version(), Some(1));
    items.push(item4);
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "items": items_bson(&items), "tags": ["modified", "tag2"], "__v": 1 }
    );
    t.finish().await;
}
