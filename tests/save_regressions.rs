//! Issue 9, items 1-5: each way a save lost or corrupted a write, against
//! the server. After every save the stored document loads back equal to the
//! in-memory value; a stale copy that would lose another copy's saved
//! write fails with `Error::Version` and writes nothing.

mod common;

use std::collections::BTreeMap;

use common::{rewriting, Monitored};
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

/// Loads the stored document and checks it equals `doc` in memory, with
/// the stored version equal to `doc.version()`.
async fn assert_stored<T>(model: &Model<T>, doc: &Doc<T>)
where
    T: odm::Document + PartialEq + std::fmt::Debug,
{
    let id = doc.id().unwrap();
    let loaded = model.find_by_id(id.clone()).await.unwrap().expect("stored");
    assert_eq!(&*loaded, &**doc, "stored != in memory");
    let raw = model
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap();
    let stored_version = raw.get("__v").and_then(Bson::as_i32).map(i64::from);
    assert_eq!(stored_version, doc.version(), "stored version");
}

async fn raw<T: odm::Document>(model: &Model<T>, id: impl Into<Bson>) -> BsonDocument {
    model
        .collection()
        .find_one(doc! { "_id": id.into() })
        .await
        .unwrap()
        .unwrap()
}

// Item 1: map keys that cannot be paths.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "counters")]
struct Counters {
    #[serde(rename = "_id")]
    id: ObjectId,
    counts: BTreeMap<String, i32>,
    nested: BTreeMap<String, BTreeMap<String, i32>>,
}

#[tokio::test]
async fn a_map_key_that_is_not_a_path_saves_its_whole_map() {
    let t = TestDb::new().await;
    let model = Counters::model(&t.db);
    let mut doc = model
        .create(Counters {
            id: ObjectId::new(),
            counts: BTreeMap::from([("plain".to_string(), 1)]),
            nested: BTreeMap::new(),
        })
        .await
        .unwrap();
    doc.counts.insert("a.b".into(), 2);
    let (_, update) = doc.changes().unwrap();
    assert_eq!(
        update,
        doc! { "$set": { "counts": { "a.b": 2, "plain": 1 } }, "$inc": { "__v": 1 } },
        "the whole map, never the path counts.a.b, checked and bumped"
    );
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;

    // A plain key beside it is still a path; removing the dotted one sets
    // the map again.
    doc.counts.insert("plain".into(), 5);
    assert_eq!(
        doc.changes().unwrap().1,
        doc! { "$set": { "counts.plain": 5 } }
    );
    doc.counts.remove("a.b");
    doc.nested
        .entry("inner".into())
        .or_default()
        .insert("x.y".into(), 1);
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;

    // Empty and `$` keys: likewise (`$` keys need MongoDB 5.0 or later).
    doc.counts.insert(String::new(), 3);
    doc.nested.get_mut("inner").unwrap().insert("$z".into(), 4);
    let (_, update) = doc.changes().unwrap();
    assert_eq!(
        update,
        doc! {
            "$set": {
                "counts": { "": 3, "plain": 5 },
                "nested.inner": { "$z": 4, "x.y": 1 },
            },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;

    // Two copies adding different dotted keys: the second whole-map write
    // would drop the first one's key, so it fails instead.
    let mut a = model.find_by_id(doc.id).await.unwrap().unwrap();
    let mut b = model.find_by_id(doc.id).await.unwrap().unwrap();
    a.counts.insert("x.y".into(), 1);
    a.save().await.unwrap();
    b.counts.insert("p.q".into(), 1);
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_stored(&model, &a).await;
    t.finish().await;
}

// Item 2: removals judged by MongoDB's equality, guarded against other
// copies' pushes.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum Mixed {
    I(i32),
    F(f64),
    S(String),
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "values")]
struct Values {
    #[serde(rename = "_id")]
    id: ObjectId,
    floats: Vec<f64>,
    mixed: Vec<Mixed>,
    tags: Vec<String>,
}

/// Bitwise on floats: -0.0 and 0.0 differ.
impl PartialEq for Values {
    fn eq(&self, other: &Self) -> bool {
        let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        let mixed = |v: &[Mixed]| {
            v.iter()
                .map(|m| match m {
                    Mixed::F(f) => format!("f{}", f.to_bits()),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
        };
        self.id == other.id
            && bits(&self.floats) == bits(&other.floats)
            && mixed(&self.mixed) == mixed(&other.mixed)
            && self.tags == other.tags
    }
}

fn values() -> Values {
    Values {
        id: ObjectId::new(),
        floats: vec![0.0, -0.0, 1.0],
        mixed: vec![Mixed::I(1), Mixed::F(1.0), Mixed::S("1".into())],
        tags: vec!["d".into(), "a".into()],
    }
}

#[tokio::test]
async fn removing_a_value_keeps_the_equal_values_the_doc_keeps() {
    let t = TestDb::new().await;
    let model = Values::model(&t.db);
    let mut doc = model.create(values()).await.unwrap();
    doc.floats.remove(0); // 0.0; -0.0 stays
    doc.mixed.remove(0); // Int32 1; 1.0 and "1" stay
    let (_, update) = doc.changes().unwrap();
    assert_eq!(
        update,
        doc! {
            "$set": { "floats": [-0.0, 1.0], "mixed": [1.0, "1"] },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;
    let stored = raw(&model, doc.id).await;
    assert_eq!(
        stored.get_array("floats").unwrap()[0]
            .as_f64()
            .unwrap()
            .to_bits(),
        (-0.0f64).to_bits()
    );
    t.finish().await;
}

#[tokio::test]
async fn a_stale_removal_cannot_pull_a_value_another_copy_pushed() {
    let t = TestDb::new().await;
    let model = Values::model(&t.db);
    let id = model.create(values()).await.unwrap().id;
    let mut a = model.find_by_id(id).await.unwrap().unwrap();
    let mut b = model.find_by_id(id).await.unwrap().unwrap();
    a.tags.push("a".into());
    a.save().await.unwrap();

    b.tags.remove(1); // removes the one "a" B loaded
    let pending = b.changes().unwrap();
    assert_eq!(
        pending.1,
        doc! { "$pullAll": { "tags": ["a"] }, "$inc": { "__v": 1 } }
    );
    let err = b.save().await.unwrap_err();
    let Error::Version(e) = &err else {
        panic!("expected a version error, got {err:?}")
    };
    assert_eq!(e.modified_paths, ["tags"]);
    assert_eq!(b.changes().unwrap(), pending, "B keeps its changes");
    assert_eq!(b.version(), Some(0));
    assert_stored(&model, &a).await; // both "a"s are still there
    assert_eq!(raw(&model, id).await.get_array("tags").unwrap().len(), 3);

    // A removal of another value still lands beside A's push.
    b.reload().await.unwrap();
    let mut c = model.find_by_id(id).await.unwrap().unwrap();
    c.tags.push("z".into());
    c.save().await.unwrap();
    b.tags.retain(|t| t != "d");
    b.save().await.unwrap();
    let stored = model.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(stored.tags, ["a", "a", "z"]);
    t.finish().await;
}

// Items 3 and 4: assignments and replaced sub-documents bump the version.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Comment {
    #[serde(rename = "_id")]
    id: ObjectId,
    text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "threads")]
struct Thread {
    #[serde(rename = "_id")]
    id: ObjectId,
    tags: Vec<String>,
    comments: Vec<Comment>,
}

fn comment(text: &str) -> Comment {
    Comment {
        id: ObjectId::new(),
        text: text.into(),
    }
}

async fn thread(model: &Model<Thread>) -> (Doc<Thread>, Doc<Thread>) {
    let id = model
        .create(Thread {
            id: ObjectId::new(),
            tags: vec!["a".into(), "b".into()],
            comments: vec![comment("first"), comment("second")],
        })
        .await
        .unwrap()
        .id;
    (
        model.find_by_id(id).await.unwrap().unwrap(),
        model.find_by_id(id).await.unwrap().unwrap(),
    )
}

#[tokio::test]
async fn a_same_length_assignment_makes_a_stale_whole_array_write_fail() {
    let t = TestDb::new().await;
    let model = Thread::model(&t.db);
    let (mut a, mut b) = thread(&model).await;
    a.tags = vec!["x".into(), "y".into()];
    assert_eq!(
        a.changes().unwrap(),
        (
            // The rewrite guard (save-rules.md): the rewrite also
            // requires what this copy loaded there.
            rewriting(doc! { "_id": a.id, "__v": 0 }, "tags", vec!["a", "b"]),
            doc! { "$set": { "tags": ["x", "y"] }, "$inc": { "__v": 1 } }
        )
    );
    a.save().await.unwrap();
    b.tags.insert(0, "z".into());
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_stored(&model, &a).await;

    // Edits that keep an element in place stay positional, and two copies
    // editing different elements both land.
    let (mut a, mut b) = thread(&model).await;
    a.tags[0] = "A".into();
    b.tags[1] = "B".into();
    assert_eq!(a.changes().unwrap().1, doc! { "$set": { "tags.0": "A" } });
    a.save().await.unwrap();
    b.save().await.unwrap();
    let stored = model.find_by_id(a.id).await.unwrap().unwrap();
    assert_eq!(stored.tags, ["A", "B"]);
    t.finish().await;
}

#[tokio::test]
async fn a_sub_document_replaced_or_moved_makes_stale_positional_edits_fail() {
    let t = TestDb::new().await;
    let model = Thread::model(&t.db);

    // Moved: A swaps the two comments; B edits the text of comment 0.
    let (mut a, mut b) = thread(&model).await;
    a.comments.swap(0, 1);
    let (_, update) = a.changes().unwrap();
    assert!(update.contains_key("$inc"), "{update}");
    assert!(update
        .get_document("$set")
        .unwrap()
        .contains_key("comments"));
    a.save().await.unwrap();
    b.comments[0].text = "edited".into();
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_stored(&model, &a).await;

    // Replaced at the same length: pull one, push another.
    let (mut a, mut b) = thread(&model).await;
    a.comments.remove(1);
    a.comments.push(comment("third"));
    a.save().await.unwrap();
    b.comments[1].text = "edited".into();
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_stored(&model, &a).await;
    let stored = model.find_by_id(a.id).await.unwrap().unwrap();
    assert_eq!(stored.comments[1].text, "third");
    t.finish().await;
}

// Item 5: fields the store lacks, filled in by `#[serde(default)]`.

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Profile {
    name: String,
    age: i32,
}

fn starter_tags() -> Vec<String> {
    vec!["new".into(), "member".into()]
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Entry {
    text: String,
    #[serde(default = "starter_tags")]
    labels: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "members")]
struct Member {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
    #[serde(default)]
    profile: Profile,
    #[serde(default = "starter_tags")]
    tags: Vec<String>,
    #[serde(default)]
    entries: Vec<Entry>,
}

/// A member document as older code stored it: no profile, no tags, entries
/// without labels.
async fn old_member(model: &Model<Member>) -> Doc<Member> {
    let id = ObjectId::new();
    model
        .collection()
        .insert_one(doc! {
            "_id": id, "email": "a@b.c", "__v": 0,
            "entries": [{ "text": "one" }, { "text": "two" }],
        })
        .await
        .unwrap();
    model.find_by_id(id).await.unwrap().unwrap()
}

#[tokio::test]
async fn changes_under_a_missing_defaulted_field_set_it_whole() {
    let t = TestDb::new().await;
    let model = Member::model(&t.db);

    let mut doc = old_member(&model).await;
    assert_eq!(doc.tags, starter_tags());
    assert_eq!(doc.changes(), None, "a filled-in default is no change");
    doc.profile.name = "Ann".into();
    doc.tags.push("admin".into());
    doc.entries[1].labels.push("x".into());
    let (filter, update) = doc.changes().unwrap();
    // The rewrite guard (save-rules.md): a field set whole because
    // the store lacked it requires it still absent, so it cannot replace
    // what another copy stored there (and a third edited in place) since.
    let absent = || doc! { "$exists": false };
    assert_eq!(
        filter,
        doc! {
            "_id": doc.id,
            "__v": 0,
            "profile": absent(),
            "tags": absent(),
            "entries.1.labels": absent(),
        }
    );
    assert_eq!(
        update,
        doc! {
            "$set": {
                "profile": { "name": "Ann", "age": 0 },
                "tags": ["new", "member", "admin"],
                "entries.1.labels": ["new", "member", "x"],
            },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;

    // Stored now: the next change is an ordinary one.
    doc.profile.age = 30;
    doc.tags.push("owner".into());
    assert_eq!(
        doc.changes().unwrap().1,
        doc! {
            "$set": { "profile.age": 30 },
            "$push": { "tags": { "$each": ["owner"] } },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;

    // entries.0 still lacks labels: an in-place edit of it fills them.
    doc.entries[0].labels[0] = "old".into();
    assert_eq!(
        doc.changes().unwrap().1,
        doc! {
            "$set": { "entries.0.labels": ["old", "member"] },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;
    t.finish().await;
}

#[tokio::test]
async fn two_copies_filling_one_missing_field_do_not_lose_a_write() {
    let t = TestDb::new().await;
    let model = Member::model(&t.db);
    let mut a = old_member(&model).await;
    let mut b = model.find_by_id(a.id).await.unwrap().unwrap();
    a.profile.name = "Ann".into();
    a.save().await.unwrap();
    b.profile.age = 40;
    assert!(
        matches!(b.save().await, Err(Error::Version(_))),
        "B would overwrite A's profile with its own whole profile"
    );
    assert_stored(&model, &a).await;
    b.reload().await.unwrap();
    b.profile.age = 40;
    assert_eq!(
        b.changes().unwrap().1,
        doc! { "$set": { "profile.age": 40 } }
    );
    b.save().await.unwrap();
    let stored = model.find_by_id(a.id).await.unwrap().unwrap();
    assert_eq!(
        stored.profile,
        Profile {
            name: "Ann".into(),
            age: 40
        }
    );
    t.finish().await;
}

#[tokio::test]
async fn a_pull_before_a_missing_path_keeps_later_fills_right() {
    let t = TestDb::new().await;
    let model = Member::model(&t.db);
    let mut doc = old_member(&model).await;
    // Entry 1 lacks labels; after entry 0 is removed it is entry 0.
    doc.entries.remove(0);
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;
    doc.entries[0].labels.push("y".into());
    doc.save().await.unwrap();
    assert_stored(&model, &doc).await;
    t.finish().await;
}

// Found by the random histories: a stale copy writing under a document
// another copy removed.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Inner {
    x: i32,
    y: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Slot {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    inner: Option<Inner>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "holders")]
struct Holder {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    opt: Option<Inner>,
    by_key: BTreeMap<String, Inner>,
    slots: Vec<Slot>,
}

#[tokio::test]
async fn a_stale_write_under_a_removed_document_fails_instead_of_storing_a_fragment() {
    let t = TestDb::new().await;
    let model = Holder::model(&t.db);
    let inner = Inner { x: 1, y: 2 };
    let id = model
        .create(Holder {
            id: ObjectId::new(),
            opt: Some(inner.clone()),
            by_key: BTreeMap::from([("k".to_string(), inner.clone())]),
            slots: vec![Slot {
                id: ObjectId::new(),
                inner: Some(inner),
            }],
        })
        .await
        .unwrap()
        .id;
    let load = || model.find_by_id(id);

    // An Option set to None (`$unset opt`, which bumps), then a stale leaf
    // set under it (no version check: the parent guard refuses it).
    let (mut a, mut b) = (
        load().await.unwrap().unwrap(),
        load().await.unwrap().unwrap(),
    );
    a.opt = None;
    assert_eq!(
        a.changes().unwrap().1,
        doc! { "$unset": { "opt": "" }, "$inc": { "__v": 1 } }
    );
    a.save().await.unwrap();
    b.opt.as_mut().unwrap().y = 5;
    assert_eq!(
        b.changes().unwrap(),
        (
            doc! { "_id": id, "opt": { "$type": ["object", "array"] } },
            doc! { "$set": { "opt.y": 5 } }
        )
    );
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_stored(&model, &a).await;

    // A map entry removed, then a stale edit of it.
    let (mut a, mut b) = (
        load().await.unwrap().unwrap(),
        load().await.unwrap().unwrap(),
    );
    a.by_key.remove("k");
    a.save().await.unwrap();
    b.by_key.get_mut("k").unwrap().x = 9;
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_stored(&model, &a).await;

    // Inside an array element: removing it bumps, so the stale positional
    // edit fails on its version.
    let (mut a, mut b) = (
        load().await.unwrap().unwrap(),
        load().await.unwrap().unwrap(),
    );
    a.slots[0].inner = None;
    assert_eq!(
        a.changes().unwrap(),
        (
            // The rewrite guard (save-rules.md): the rewrite also
            // requires what this copy loaded there.
            rewriting(
                doc! { "_id": id, "__v": 2 },
                "slots.0.inner",
                doc! { "x": 1, "y": 2 }
            ),
            doc! { "$unset": { "slots.0.inner": "" }, "$inc": { "__v": 1 } }
        )
    );
    a.save().await.unwrap();
    b.slots[0].inner.as_mut().unwrap().x = 3;
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert_stored(&model, &a).await;

    // A deleted document is still NotFound, not a version error.
    let mut c = model
        .create(Holder {
            id: ObjectId::new(),
            opt: Some(Inner { x: 1, y: 1 }),
            by_key: BTreeMap::new(),
            slots: vec![],
        })
        .await
        .unwrap();
    model
        .collection()
        .delete_one(doc! { "_id": c.id })
        .await
        .unwrap();
    c.opt.as_mut().unwrap().y = 7;
    let err = c.save().await.unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "loose")]
struct Loose {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    #[serde(flatten)]
    rest: BTreeMap<String, i32>,
}

#[tokio::test]
async fn a_top_level_key_that_is_not_a_path_is_refused_before_sending() {
    let m = Monitored::new("not_a_path").await;
    let model = Loose::model(m.db());
    let mut doc = model
        .create(Loose {
            id: ObjectId::new(),
            name: "n".into(),
            rest: BTreeMap::from([("plain".to_string(), 1)]),
        })
        .await
        .unwrap();
    let before = raw(&model, doc.id).await;
    doc.rest.insert("a.b".into(), 2);
    doc.name = "m".into();
    m.monitor.clear();
    let err = doc.save().await.unwrap_err();
    assert!(
        m.monitor.all().is_empty(),
        "nothing sent: {:?}",
        m.monitor.all()
    );
    assert!(matches!(err, Error::Serialize(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "cannot serialize the document to BSON: the top-level key \"a.b\" cannot be saved by an \
         update: a key that contains '.', starts with '$' or is empty is not a field path; keep \
         such keys inside a map field, which is then saved whole"
    );
    assert_eq!(raw(&model, doc.id).await, before, "nothing written");
    assert_eq!(doc.version(), Some(0));
    assert_eq!(doc.rest.get("a.b"), Some(&2), "the Doc keeps its changes");
    // Without the key the save goes through.
    doc.rest.remove("a.b");
    doc.save().await.unwrap();
    assert_eq!(m.monitor.writes(), ["update"]);
    assert_stored(&model, &doc).await;
    m.finish().await;
}
