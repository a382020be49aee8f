//! save-rules.md, "Insert" and "Update, default mode": every row of the
//! table, against the server: the exact `(filter, update)`, the stored
//! document and the version afterwards.

use crate::common;

use common::bson::to_bson;
use common::*;
use odm::bson::Bson;
use odm::prelude::*;
use odm_testing::TestDb;

/// Creates a post, loads it back, applies `change`, checks the update it
/// sends, saves, and returns the stored document and the in-memory version.
async fn save_change(
    change: impl FnOnce(&mut Post),
    expected_update: odm::bson::Document,
    version_in_filter: bool,
) -> (Post, odm::bson::Document, Option<i64>) {
    let filter = move |p: &Post| {
        if version_in_filter {
            doc! { "_id": p.id, "__v": 0 }
        } else {
            doc! { "_id": p.id }
        }
    };
    save_change_filtered(change, expected_update, filter).await
}

/// [`save_change`], with the expected filter made from the post as created.
async fn save_change_filtered(
    change: impl FnOnce(&mut Post),
    expected_update: odm::bson::Document,
    expected_filter: impl FnOnce(&Post) -> odm::bson::Document,
) -> (Post, odm::bson::Document, Option<i64>) {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let created = posts.create(post()).await.unwrap();
    let id = created.id;
    let mut doc = posts.find_by_id(id).await.unwrap().unwrap();
    change(&mut doc);
    let filter = expected_filter(&created);
    assert_eq!(doc.changes(), Some((filter, expected_update)));
    doc.save().await.unwrap();
    assert_eq!(doc.changes(), None, "nothing pending after a save");
    let stored = stored(&posts, id).await;
    let value = doc.clone();
    let version = doc.version();
    t.finish().await;
    (value, stored, version)
}

fn strip_version(mut stored: odm::bson::Document) -> odm::bson::Document {
    stored.remove("__v");
    stored
}

#[tokio::test]
async fn insert_stores_version_zero() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let value = post();
    let mut doc = posts.new_doc(value.clone());
    assert!(doc.is_new());
    assert_eq!(doc.version(), None);
    assert_eq!(doc.changes(), None, "an insert is not an update");
    doc.save().await.unwrap();
    assert!(!doc.is_new());
    assert_eq!(doc.version(), Some(0));
    let stored = stored(&posts, value.id).await;
    assert_eq!(stored.get("__v"), Some(&Bson::Int32(0)));
    let mut expected = common::bson::to_document(&value).unwrap();
    expected.insert("__v", 0);
    assert_eq!(stored, expected);
    t.finish().await;
}

#[tokio::test]
async fn scalar_change_is_a_set_without_version() {
    let (value, stored, version) = save_change(
        |p| p.title = "second".into(),
        doc! { "$set": { "title": "second" } },
        false,
    )
    .await;
    assert_eq!(stored.get_str("title").unwrap(), "second");
    assert_eq!(stored.get_i32("__v").unwrap(), 0);
    assert_eq!(version, Some(0));
    assert_eq!(
        strip_version(stored),
        common::bson::to_document(&value).unwrap()
    );
}

#[tokio::test]
async fn nested_field_is_a_set_of_the_leaf() {
    let (_, stored, version) = save_change_filtered(
        |p| p.meta.city = "Bergen".into(),
        doc! { "$set": { "meta.city": "Bergen" } },
        // No version check: the parent guard instead.
        |p| with_parents(doc! { "_id": p.id }, &["meta"]),
    )
    .await;
    assert_eq!(
        stored.get_document("meta").unwrap(),
        &doc! { "city": "Bergen", "visits": 1 }
    );
    assert_eq!(version, Some(0));
}

#[tokio::test]
async fn absent_field_is_an_unset() {
    let (_, stored, version) =
        save_change(|p| p.note = None, doc! { "$unset": { "note": "" } }, false).await;
    assert!(!stored.contains_key("note"));
    assert_eq!(version, Some(0));
}

#[tokio::test]
async fn append_is_a_push_with_inc() {
    let (value, stored, version) = save_change(
        |p| p.numbers.extend([7, 8]),
        doc! { "$push": { "numbers": { "$each": [7, 8] } }, "$inc": { "__v": 1 } },
        false,
    )
    .await;
    assert_eq!(value.numbers, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(stored.get_array("numbers").unwrap().len(), 8);
    assert_eq!(stored.get_i32("__v").unwrap(), 1);
    assert_eq!(version, Some(1));
}

#[tokio::test]
async fn clean_removal_of_primitives_is_a_pull_all_with_inc() {
    let (_, stored, version) = save_change_filtered(
        |p| p.numbers.retain(|n| *n != 2 && *n != 5),
        doc! { "$pullAll": { "numbers": [2, 5] }, "$inc": { "__v": 1 } },
        // No version in the filter: the removal guard, one term per value.
        |p| {
            guarded(
                doc! { "_id": p.id },
                "numbers",
                &[(2.into(), 1), (5.into(), 1)],
            )
        },
    )
    .await;
    assert_eq!(
        stored.get_array("numbers").unwrap(),
        &vec![
            Bson::Int32(1),
            Bson::Int32(3),
            Bson::Int32(4),
            Bson::Int32(6)
        ]
    );
    assert_eq!(version, Some(1));
}

#[tokio::test]
async fn removal_of_sub_documents_with_id_is_a_pull_by_id() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let value = post();
    let removed = value.comments[1].id;
    posts.create(value.clone()).await.unwrap();
    let mut doc = posts.find_by_id(value.id).await.unwrap().unwrap();
    doc.comments.remove(1);
    assert_eq!(
        doc.changes(),
        Some((
            doc! { "_id": value.id },
            doc! { "$pull": { "comments": { "_id": { "$in": [removed] } } }, "$inc": { "__v": 1 } }
        ))
    );
    doc.save().await.unwrap();
    let stored = stored(&posts, value.id).await;
    let texts: Vec<_> = stored
        .get_array("comments")
        .unwrap()
        .iter()
        .map(|c| {
            c.as_document()
                .unwrap()
                .get_str("text")
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(texts, ["a", "c"]);
    assert_eq!(doc.version(), Some(1));
    t.finish().await;
}

#[tokio::test]
async fn removal_of_sub_documents_without_id_sets_the_array() {
    let (_, stored, version) = save_change_filtered(
        |p| {
            p.notes.remove(0);
        },
        doc! { "$set": { "notes": [{ "text": "y" }] }, "$inc": { "__v": 1 } },
        // The rewrite guard (save-rules.md): the whole-array $set also
        // requires the array this copy loaded.
        |p| {
            rewriting(
                doc! { "_id": p.id, "__v": 0 },
                "notes",
                vec![doc! { "text": "x" }, doc! { "text": "y" }],
            )
        },
    )
    .await;
    assert_eq!(
        stored.get_array("notes").unwrap(),
        &vec![Bson::Document(doc! { "text": "y" })]
    );
    assert_eq!(version, Some(1));
}

#[tokio::test]
async fn in_place_element_change_is_positional_with_version_check() {
    let (_, stored, version) = save_change_filtered(
        |p| p.numbers[2] = 30,
        doc! { "$set": { "numbers.2": 30 } },
        // The positional guard (save-rules.md): the element must still hold
        // the 3 this copy loaded.
        |p| {
            in_place(
                doc! { "_id": p.id, "__v": 0 },
                vec![element_is("numbers", 2, 3)],
            )
        },
    )
    .await;
    assert_eq!(stored.get_array("numbers").unwrap()[2], Bson::Int32(30));
    assert_eq!(
        stored.get_i32("__v").unwrap(),
        0,
        "no bump for an in-place change"
    );
    assert_eq!(version, Some(0));
}

#[tokio::test]
async fn in_place_sub_document_field_is_positional() {
    let (_, stored, version) = save_change_filtered(
        |p| p.comments[1].text = "B".into(),
        doc! { "$set": { "comments.1.text": "B" } },
        // The positional guard: the same sub-document, its text as loaded.
        |p| {
            in_place(
                doc! { "_id": p.id, "__v": 0 },
                vec![element_has(
                    "comments",
                    1,
                    &[
                        ("_id", Some(p.comments[1].id.into())),
                        ("text", Some("b".into())),
                    ],
                )],
            )
        },
    )
    .await;
    let second = stored.get_array("comments").unwrap()[1]
        .as_document()
        .unwrap()
        .clone();
    assert_eq!(second.get_str("text").unwrap(), "B");
    assert_eq!(version, Some(0));
}

#[tokio::test]
async fn other_array_changes_set_the_whole_array_with_all() {
    type Change = Box<dyn FnOnce(&mut Post) + Send>;
    let cases: Vec<(Change, Vec<i32>)> = vec![
        (
            Box::new(|p: &mut Post| p.numbers.reverse()),
            vec![6, 5, 4, 3, 2, 1],
        ),
        (
            Box::new(|p: &mut Post| p.numbers.insert(1, 9)),
            vec![1, 9, 2, 3, 4, 5, 6],
        ),
        (
            Box::new(|p: &mut Post| {
                p.numbers.remove(0);
                p.numbers.push(7);
            }),
            vec![2, 3, 4, 5, 6, 7],
        ),
        (
            Box::new(|p: &mut Post| {
                p.numbers = vec![1, 1, 2];
            }),
            vec![1, 1, 2],
        ),
    ];
    for (change, expected) in cases {
        let (value, stored, version) = save_change_filtered(
            change,
            doc! { "$set": { "numbers": expected.clone() }, "$inc": { "__v": 1 } },
            // The rewrite guard (save-rules.md): the whole-array $set also
            // requires the array this copy loaded.
            |p| {
                rewriting(
                    doc! { "_id": p.id, "__v": 0 },
                    "numbers",
                    vec![1, 2, 3, 4, 5, 6],
                )
            },
        )
        .await;
        assert_eq!(value.numbers, expected);
        assert_eq!(
            stored.get_array("numbers").unwrap(),
            &to_bson(&expected).unwrap().as_array().unwrap().clone()
        );
        assert_eq!(stored.get_i32("__v").unwrap(), 1);
        assert_eq!(version, Some(1));
    }
}

#[tokio::test]
async fn duplicates_removed_partly_set_the_whole_array() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let mut value = post();
    value.numbers = vec![1, 4, 4, 6];
    posts.create(value.clone()).await.unwrap();
    let mut doc = posts.find_by_id(value.id).await.unwrap().unwrap();
    doc.numbers.remove(1);
    assert_eq!(
        doc.changes(),
        Some((
            // The rewrite guard (save-rules.md).
            rewriting(
                doc! { "_id": value.id, "__v": 0 },
                "numbers",
                vec![1, 4, 4, 6]
            ),
            doc! { "$set": { "numbers": [1, 4, 6] }, "$inc": { "__v": 1 } }
        ))
    );
    doc.save().await.unwrap();
    assert_eq!(stored(&posts, value.id).await.get_i32("__v").unwrap(), 1);
    t.finish().await;
}

#[tokio::test]
async fn push_inside_an_array_element_is_all() {
    let (value, stored, version) = save_change_filtered(
        |p| p.comments[2].replies.push("hi".into()),
        doc! { "$push": { "comments.2.replies": { "$each": ["hi"] } }, "$inc": { "__v": 1 } },
        // The push lands in the sub-document this copy loaded there.
        |p| {
            in_place(
                doc! { "_id": p.id, "__v": 0 },
                vec![element_has(
                    "comments",
                    2,
                    &[("_id", Some(p.comments[2].id.into()))],
                )],
            )
        },
    )
    .await;
    assert_eq!(value.comments[2].replies, ["hi"]);
    let third = stored.get_array("comments").unwrap()[2]
        .as_document()
        .unwrap()
        .clone();
    assert_eq!(
        third.get_array("replies").unwrap(),
        &vec![Bson::String("hi".into())]
    );
    assert_eq!(version, Some(1));
}

#[tokio::test]
async fn skip_versioning_field_has_no_version_effect() {
    let (_, stored, version) = save_change(
        |p| p.log.push("seen".into()),
        doc! { "$push": { "log": { "$each": ["seen"] } } },
        false,
    )
    .await;
    assert_eq!(stored.get_i32("__v").unwrap(), 0);
    assert_eq!(version, Some(0));
}

#[tokio::test]
async fn effects_accumulate_over_one_save() {
    let (_, stored, version) = save_change_filtered(
        |p| {
            p.title = "t".into();
            p.numbers.push(7);
            p.comments[0].text = "A".into();
        },
        doc! {
            "$set": { "title": "t", "comments.0.text": "A" },
            "$push": { "numbers": { "$each": [7] } },
            "$inc": { "__v": 1 },
        },
        |p| {
            in_place(
                doc! { "_id": p.id, "__v": 0 },
                vec![element_has(
                    "comments",
                    0,
                    &[
                        ("_id", Some(p.comments[0].id.into())),
                        ("text", Some("a".into())),
                    ],
                )],
            )
        },
    )
    .await;
    assert_eq!(stored.get_i32("__v").unwrap(), 1);
    assert_eq!(version, Some(1));
}

#[tokio::test]
async fn nothing_changed_sends_no_update_and_reports_a_deleted_document() {
    let m = Monitored::new("nothing_changed").await;
    let posts = Post::model(m.db());
    let value = post();
    posts.create(value.clone()).await.unwrap();
    let mut doc = posts.find_by_id(value.id).await.unwrap().unwrap();
    assert_eq!(doc.changes(), None);
    assert!(doc.modified_paths().is_empty());
    m.monitor.clear();
    doc.save().await.unwrap();
    assert!(m.monitor.writes().is_empty(), "{:?}", m.monitor.writes());
    assert_eq!(m.monitor.started("find"), 1, "one read of {{_id}}");
    assert_eq!(doc.version(), Some(0));
    posts
        .collection()
        .delete_one(doc! { "_id": value.id })
        .await
        .unwrap();
    match doc.save().await {
        Err(Error::NotFound(e)) => {
            assert_eq!(e.collection, "posts");
            assert_eq!(e.filter, doc! { "_id": value.id });
        }
        other => panic!("expected NotFound, got {other:?}"),
    }
    assert_eq!(m.monitor.writes(), ["delete"], "only the test's own delete");
    m.finish().await;
}
