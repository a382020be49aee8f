//! The hand-picked cases of issue 9, one by one (their tests are in
//! main.rs).

use std::collections::BTreeMap;

use odm::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;

use crate::save_random::checks::{assert_stored_is_memory, raw_stored, ser, VERSION_KEY};
use crate::save_random::compare::{same_changes, same_doc};
use crate::save_random::shapes::{
    default_items, default_tags, Comment, Defaults, Floats, Inner, Maps, Mixed, OptionId, SubDocs,
    I32,
};
use crate::save_random::show::{sd, show_changes};

fn maps(counters: &[(&str, i32)]) -> Maps {
    Maps {
        id: ObjectId::new(),
        n: 0,
        counters: counters.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        labels: BTreeMap::new(),
        nested: BTreeMap::new(),
    }
}

pub async fn map_keys_that_are_not_paths() {
    let t = TestDb::new().await;
    let model = Maps::model(&t.db);
    for key in ["a.b", "$x", "", "ü.ñ"] {
        let created = model.create(maps(&[("ok", 1)])).await.unwrap();
        let id = created.id().unwrap();
        let mut doc = model.find_by_id(id.clone()).await.unwrap().unwrap();
        doc.counters.insert(key.into(), 2);
        doc.nested
            .entry(key.into())
            .or_default()
            .insert(key.into(), 3);
        let before = raw_stored(&model, &id).await.unwrap();
        let changes = show_changes(&doc.changes());
        match doc.save().await {
            // Refusing is allowed, if nothing was written.
            Err(e) => assert!(
                same_doc(&before, &raw_stored(&model, &id).await.unwrap()),
                "key {key:?}: the save failed ({e}) but wrote; it sent {changes}"
            ),
            Ok(()) => {
                assert_stored_is_memory(&model, &doc, &format!("key {key:?}, sent {changes}")).await
            }
        }
    }
    t.finish().await;
}

fn floats(xs: Vec<f64>, mixed: Vec<Mixed>) -> Floats {
    Floats {
        id: ObjectId::new(),
        x: 0.0,
        xs,
        mixed,
        keep: vec![],
    }
}

pub async fn removing_zero_keeps_negative_zero() {
    let t = TestDb::new().await;
    let model = Floats::model(&t.db);
    let created = model
        .create(floats(vec![0.0, -0.0, 1.0], vec![]))
        .await
        .unwrap();
    let mut doc = model
        .find_by_id(created.id().unwrap())
        .await
        .unwrap()
        .unwrap();
    doc.xs.remove(0);
    let changes = show_changes(&doc.changes());
    doc.save().await.unwrap();
    assert_stored_is_memory(
        &model,
        &doc,
        &format!("removing 0.0 from [0.0, -0.0, 1.0], sent {changes}"),
    )
    .await;
    t.finish().await;
}

pub async fn removing_int32_one_keeps_double_and_string() {
    let t = TestDb::new().await;
    let model = Floats::model(&t.db);
    let mixed = vec![Mixed::I(I32(1)), Mixed::F(1.0), Mixed::S("1".into())];
    let created = model.create(floats(vec![], mixed)).await.unwrap();
    let mut doc = model
        .find_by_id(created.id().unwrap())
        .await
        .unwrap()
        .unwrap();
    doc.mixed.remove(0);
    let changes = show_changes(&doc.changes());
    doc.save().await.unwrap();
    assert_stored_is_memory(
        &model,
        &doc,
        &format!("removing Int32 1 from [1, 1.0, \"1\"], sent {changes}"),
    )
    .await;
    t.finish().await;
}

fn subdocs(tags: &[&str], comments: Vec<Comment>) -> SubDocs {
    SubDocs {
        id: ObjectId::new(),
        title: "t".into(),
        tags: tags.iter().map(|s| s.to_string()).collect(),
        comments,
        notes: vec![],
    }
}

/// Loads A and B, lets A change and save, B change; B's save must fail
/// with `Error::Version`, write nothing, and keep B's pending changes.
async fn stale_save_must_fail(
    value: SubDocs,
    a_change: impl FnOnce(&mut SubDocs),
    b_change: impl FnOnce(&mut SubDocs),
) -> BsonDocument {
    let t = TestDb::new().await;
    let model = SubDocs::model(&t.db);
    let id = model.create(value).await.unwrap().id().unwrap();
    let mut a = model.find_by_id(id.clone()).await.unwrap().unwrap();
    let mut b = model.find_by_id(id.clone()).await.unwrap().unwrap();
    a_change(&mut a);
    let a_sent = show_changes(&a.changes());
    a.save().await.unwrap();
    assert_stored_is_memory(&model, &a, "A").await;
    let after_a = raw_stored(&model, &id).await.unwrap();
    b_change(&mut b);
    let b_changes = b.changes();
    let version = b.version();
    let result = b.save().await;
    let stored = raw_stored(&model, &id).await.unwrap();
    assert!(
        matches!(result, Err(odm::Error::Version(_))),
        "stale B must fail with Error::Version, got {result:?}\n  A sent {a_sent}\n  B sent {}\n  stored before B: {}\n  stored after B: {}",
        show_changes(&b_changes),
        sd(&after_a),
        sd(&stored)
    );
    assert!(
        same_doc(&stored, &after_a),
        "B's failed save wrote: {}",
        sd(&stored)
    );
    assert!(
        same_changes(&b.changes(), &b_changes),
        "B keeps its pending changes"
    );
    assert_eq!(b.version(), version, "B keeps its version");
    t.finish().await;
    stored
}

pub async fn stale_removal_after_push_of_an_equal_value() {
    let stored = stale_save_must_fail(
        subdocs(&["d", "a"], vec![]),
        |a| a.tags.push("a".into()),
        |b| {
            b.tags.remove(1);
        },
    )
    .await;
    assert_eq!(
        stored.get_array("tags").unwrap(),
        &vec![Bson::from("d"), Bson::from("a"), Bson::from("a")]
    );
}

pub async fn assignment_then_stale_insert_at_the_front() {
    let stored = stale_save_must_fail(
        subdocs(&["a", "b"], vec![]),
        |a| a.tags = vec!["x".into(), "y".into()],
        |b| b.tags.insert(0, "z".into()),
    )
    .await;
    assert_eq!(
        stored.get_array("tags").unwrap(),
        &vec![Bson::from("x"), Bson::from("y")]
    );
}

fn comment_with(text: &str) -> Comment {
    Comment {
        id: ObjectId::new(),
        text: text.into(),
        replies: vec![],
    }
}

pub async fn moved_sub_document_then_stale_positional_edit() {
    stale_save_must_fail(
        subdocs(&[], vec![comment_with("one"), comment_with("two")]),
        |a| a.comments.swap(0, 1),
        |b| b.comments[0].text = "edited".into(),
    )
    .await;
}

pub async fn replaced_sub_document_then_stale_positional_edit() {
    stale_save_must_fail(
        subdocs(&[], vec![comment_with("one"), comment_with("two")]),
        |a| a.comments[0] = comment_with("new"),
        |b| b.comments[0].text = "edited".into(),
    )
    .await;
}

/// A `Defaults` stored without `fields`, loaded back.
async fn defaults_missing(model: &Model<Defaults>, fields: &[&str]) -> Doc<Defaults> {
    let value = Defaults {
        id: ObjectId::new(),
        name: "n".into(),
        inner: Inner::default(),
        tags: default_tags(),
        items: default_items(),
    };
    let mut raw = ser(&value);
    for f in fields {
        raw.remove(*f);
    }
    raw.insert(VERSION_KEY, 0);
    model.collection().insert_one(raw).await.unwrap();
    let doc = model.find_by_id(value.id).await.unwrap().unwrap();
    assert_eq!(*doc, value, "the defaults fill the missing fields");
    doc
}

pub async fn push_on_a_missing_defaulted_vec() {
    let t = TestDb::new().await;
    let model = Defaults::model(&t.db);
    let mut doc = defaults_missing(&model, &["tags"]).await;
    doc.tags.push("z".into());
    let changes = show_changes(&doc.changes());
    doc.save().await.unwrap();
    assert_stored_is_memory(
        &model,
        &doc,
        &format!("push on a missing defaulted Vec, sent {changes}"),
    )
    .await;
    t.finish().await;
}

pub async fn one_field_of_a_missing_defaulted_struct() {
    let t = TestDb::new().await;
    let model = Defaults::model(&t.db);
    let mut doc = defaults_missing(&model, &["inner"]).await;
    doc.inner.b = 42;
    let changes = show_changes(&doc.changes());
    doc.save().await.unwrap();
    assert_stored_is_memory(
        &model,
        &doc,
        &format!("inner.b on a missing defaulted struct, sent {changes}"),
    )
    .await;
    t.finish().await;
}

pub async fn in_place_edit_of_a_missing_defaulted_array() {
    let t = TestDb::new().await;
    let model = Defaults::model(&t.db);
    let mut doc = defaults_missing(&model, &["items"]).await;
    doc.items[0].n = 5;
    let changes = show_changes(&doc.changes());
    doc.save().await.unwrap();
    assert_stored_is_memory(
        &model,
        &doc,
        &format!("items.0.n on a missing defaulted array, sent {changes}"),
    )
    .await;
    t.finish().await;
}

pub async fn option_id_generated_on_insert() {
    let t = TestDb::new().await;
    let model = OptionId::model(&t.db);
    let mut doc = model.new_doc(OptionId {
        id: None,
        name: "n".into(),
        n: 0,
        tags: vec![],
    });
    doc.save().await.unwrap();
    let id = doc.id();
    assert!(
        matches!(id, Ok(Bson::ObjectId(_))),
        "the Doc knows the generated _id: Doc::id() = {id:?}"
    );
    assert!(doc.id.is_some(), "the value holds the generated _id");
    assert_stored_is_memory(&model, &doc, "after the insert").await;
    doc.n = 1;
    let changes = show_changes(&doc.changes());
    doc.save()
        .await
        .unwrap_or_else(|e| panic!("the save after the insert failed: {e}; it sent {changes}"));
    assert_stored_is_memory(&model, &doc, "after the save following the insert").await;
    t.finish().await;
}
