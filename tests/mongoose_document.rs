//! Version and not-found outcomes of `save()` from Mongoose's
//! `test/document.test.js`, translated to odm and run against the real
//! server. Each test names the `it(...)` it comes from; where Mongoose's
//! result differs from save-rules.md, save-rules.md wins and the comment says
//! so.

use crate::mongoose_support;

use mongoose_support::{expect_not_found, expect_version, guarded, stored};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, Document)]
#[odm(collection = "people")]
struct Person {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    tags: Vec<String>,
}

async fn deleted_person(t: &TestDb) -> (Model<Person>, Doc<Person>) {
    let m = Person::model(&t.db);
    let id = ObjectId::new();
    let tags = vec!["tag1".into(), "tag2".into()];
    let p = m
        .create(Person {
            id,
            name: "Hafez".into(),
            tags,
        })
        .await
        .unwrap();
    m.collection().delete_one(doc! { "_id": id }).await.unwrap();
    (m, p)
}

async fn gone(m: &Model<Person>, id: ObjectId) -> bool {
    m.collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .is_none()
}

// document.test.js: it('saving a document when version bump required, throws a VersionError when document is not found (gh-10974)')
// Same message as Mongoose's, byte for byte.
#[tokio::test]
async fn version_bump_required_on_a_deleted_document_is_a_version_error() {
    let t = TestDb::new().await;
    let (m, mut p) = deleted_person(&t).await;
    let id = p.id;
    p.tags.remove(0); // Mongoose: splice(0, 1)
    let pending = (
        guarded(doc! { "_id": id }, "tags", &[("tag1".into(), 1)]),
        doc! { "$pullAll": { "tags": ["tag1"] }, "$inc": { "__v": 1 } },
    );
    assert_eq!(p.changes(), Some(pending.clone()));
    expect_version(p.save().await, id, 0, "tags");
    assert_eq!(p.version(), Some(0));
    assert_eq!(p.changes(), Some(pending));
    assert!(gone(&m, id).await);
    t.finish().await;
}

// document.test.js: it('saving a document with no changes, throws an error when document is not found')
// DIFFERENCE (text only): Mongoose names the model ('on model "Person"');
// odm's NotFoundError names the collection.
#[tokio::test]
async fn saving_an_unchanged_deleted_document_is_not_found() {
    let t = TestDb::new().await;
    let (m, mut p) = deleted_person(&t).await;
    let id = p.id;
    assert_eq!(p.changes(), None);
    expect_not_found(p.save().await, id, "people");
    assert_eq!(p.version(), Some(0));
    assert!(gone(&m, id).await);
    t.finish().await;
}

// document.test.js: it('saving a document with changes, throws an error when document is not found')
// (save-rules.md worked example 6.)
#[tokio::test]
async fn saving_a_changed_deleted_document_is_not_found() {
    let t = TestDb::new().await;
    let (m, mut p) = deleted_person(&t).await;
    let id = p.id;
    p.name = "Different Name".into();
    let pending = (
        doc! { "_id": id },
        doc! { "$set": { "name": "Different Name" } },
    );
    assert_eq!(p.changes(), Some(pending.clone()));
    expect_not_found(p.save().await, id, "people");
    assert_eq!(p.changes(), Some(pending));
    assert!(gone(&m, id).await);
    t.finish().await;
}

// document.test.js: it('triggers VersionError when using push() to an array')
// DIFFERENCE: `texts` was removed from the stored document; both copies
// load it as its default `[]`. Mongoose marks that default as modified, so
// doc2's save also writes `texts` and fails with a VersionError. save-rules.md:
// a missing field that deserializes to its default is not a change, so doc2
// only sets `test` (no version effect) and succeeds; doc1's push stays.
#[tokio::test]
async fn push_to_an_array_missing_from_the_store() {
    #[derive(Debug, Serialize, Deserialize)]
    struct Text {
        text: String,
    }
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "texts")]
    struct Test {
        #[serde(rename = "_id")]
        id: ObjectId,
        #[serde(default)]
        texts: Vec<Text>,
        test: Option<String>,
    }
    let t = TestDb::new().await;
    let m = Test::model(&t.db);
    let id = ObjectId::new();
    let texts = vec![Text {
        text: "test".into(),
    }];
    m.create(Test {
        id,
        texts,
        test: Some("Test".into()),
    })
    .await
    .unwrap();
    let unset = doc! { "$unset": { "texts": 1 } };
    m.collection()
        .update_one(doc! { "_id": id }, unset)
        .await
        .unwrap();
    let mut doc1 = m.find_by_id(id).await.unwrap().unwrap();
    let mut doc2 = m.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(doc2.changes(), None);
    doc1.texts.push(Text {
        text: "name1".into(),
    });
    assert_eq!(
        doc1.changes(),
        Some((
            doc! { "_id": id },
            doc! { "$push": { "texts": { "$each": [{ "text": "name1" }] } }, "$inc": { "__v": 1 } }
        ))
    );
    doc1.save().await.unwrap();
    doc2.test = None;
    assert_eq!(
        doc2.changes(),
        Some((doc! { "_id": id }, doc! { "$set": { "test": null } }))
    );
    doc2.save().await.unwrap();
    assert_eq!((doc1.version(), doc2.version()), (Some(1), Some(0)));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "test": null, "__v": 1, "texts": [{ "text": "name1" }] }
    );
    t.finish().await;
}

// document.test.js: it('handles undoReset() on deep recursive subdocuments (gh-15255)')
// Nearest equivalent: the version error part only (the spy on
// `$__undoReset` has no counterpart). A document with nested sub-documents,
// increment() plus a change, the stored version bumped behind its back: the
// save fails and the Doc keeps its changes and version.
#[tokio::test]
async fn increment_on_a_stale_nested_document_is_a_version_error() {
    #[derive(Debug, Clone, Serialize, Deserialize)]
    struct Node {
        name: String,
        nested: Vec<Node>,
    }
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "recursive")]
    struct Tree {
        #[serde(rename = "_id")]
        id: ObjectId,
        name: String,
        nested: Vec<Node>,
        data: Option<String>,
    }
    fn node(depth: u32) -> Node {
        let nested = if depth == 0 {
            vec![]
        } else {
            vec![node(depth - 1), node(depth - 1)]
        };
        Node {
            name: format!("depth {depth}"),
            nested,
        }
    }
    let t = TestDb::new().await;
    let m = Tree::model(&t.db);
    let id = ObjectId::new();
    let tree = Tree {
        id,
        name: "root".into(),
        nested: node(4).nested,
        data: None,
    };
    m.create(tree).await.unwrap();
    let mut d = m.find_by_id(id).await.unwrap().unwrap();
    d.increment();
    d.data = Some("asd".into());
    let pending = (
        doc! { "_id": id, "__v": 0 },
        doc! { "$set": { "data": "asd" }, "$inc": { "__v": 1 } },
    );
    assert_eq!(d.changes(), Some(pending.clone()));
    let bump = doc! { "$inc": { "__v": 1 } };
    m.collection()
        .update_one(doc! { "_id": id }, bump)
        .await
        .unwrap();
    expect_version(d.save().await, id, 0, "data");
    assert_eq!(d.version(), Some(0));
    assert_eq!(d.changes(), Some(pending));
    let got = stored(&m, id).await;
    assert_eq!(got.get_i32("__v").ok(), Some(1));
    assert_eq!(got.get("data"), Some(&odm::bson::Bson::Null));
    t.finish().await;
}

// document.test.js: it('$shift() triggers $pop')
// DIFFERENCE (operator only): Mongoose records `$shift` as `$pop: {arr: -1}`;
// save-rules.md infers the removal from the values and sends `$pullAll` (the
// removed value occurs nowhere else). Both bump the version without
// checking it.
#[tokio::test]
async fn shift_is_a_removal_that_bumps_the_version() {
    #[derive(Debug, Serialize, Deserialize, Document)]
    #[odm(collection = "shifted")]
    struct Test {
        #[serde(rename = "_id")]
        id: ObjectId,
        arr: Vec<String>,
    }
    let t = TestDb::new().await;
    let m = Test::model(&t.db);
    let id = ObjectId::new();
    let arr = ["a", "b", "c"].map(String::from).to_vec();
    let mut d = m.create(Test { id, arr }).await.unwrap();
    d.arr.remove(0);
    assert_eq!(
        d.changes(),
        Some((
            guarded(doc! { "_id": id }, "arr", &[("a".into(), 1)]),
            doc! { "$pullAll": { "arr": ["a"] }, "$inc": { "__v": 1 } }
        ))
    );
    d.save().await.unwrap();
    assert_eq!(d.version(), Some(1));
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "arr": ["b", "c"], "__v": 1 }
    );
    t.finish().await;
}
