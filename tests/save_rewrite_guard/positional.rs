//! The positional guard (issue 35, save-rules.md): an in-place edit of an
//! array element requires the element to still hold what the copy loaded
//! (a sub-document: the same `_id`, the same value at the edited path), so
//! a stale copy never lands on top of another copy's change of that
//! element, however that change was written (a pop and a push, an
//! assignment, an edit). Copies editing different elements still both
//! land.

use std::future::IntoFuture;

use odm::__private::BulkPath;
use odm::bson::{doc, Bson};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

use crate::save_rewrite_guard::common::{
    element_has, element_is, in_place, stored, two_copies, with_parents,
};
use crate::save_rewrite_guard::{strings, Tagged};

fn expect_version(r: odm::Result<()>, paths: &[&str]) {
    match r {
        Err(odm::Error::Version(e)) => assert_eq!(e.modified_paths, paths),
        other => panic!("expected Error::Version, got {other:?}"),
    }
}

async fn tagged(m: &Model<Tagged>, tags: &[&str]) -> ObjectId {
    let id = ObjectId::new();
    m.create(Tagged {
        id,
        tags: strings(tags),
    })
    .await
    .unwrap();
    id
}

/// The first history: A pops and pushes (`$set tags.2 = 'a'`), B,
/// loaded before, assigns the array with its last element changed (`$set
/// tags.2 = 'c'`): B fails, A's 'a' stays, B keeps its change, and lands
/// after a reload.
pub async fn pop_and_push_then_a_stale_assignment() {
    let t = TestDb::new().await;
    let m = Tagged::model(&t.db);
    let id = tagged(&m, &["d", "a", "b"]).await;
    let (mut a, mut b) = two_copies(&m, id).await;
    a.tags.pop();
    a.tags.push("a".into());
    let guarded = in_place(
        doc! { "_id": id, "__v": 0 },
        vec![element_is("tags", 2, "b")],
    );
    assert_eq!(
        a.changes(),
        Some((guarded.clone(), doc! { "$set": { "tags.2": "a" } }))
    );
    a.save().await.unwrap();
    b.tags = strings(&["d", "a", "c"]);
    let b_changes = Some((guarded, doc! { "$set": { "tags.2": "c" } }));
    assert_eq!(b.changes(), b_changes);
    expect_version(b.save().await, &["tags.2"]);
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "tags": ["d", "a", "a"], "__v": 0 }
    );
    assert_eq!(b.changes(), b_changes, "B keeps its change");
    assert_eq!(b.version(), Some(0));
    assert_eq!(a.tags, strings(&["d", "a", "a"]));
    // Reloaded, B sees A's 'a' and edits what is stored.
    b.reload().await.unwrap();
    b.tags[2] = "c".into();
    b.save().await.unwrap();
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "tags": ["d", "a", "c"], "__v": 0 }
    );
    t.finish().await;
}

/// The second history: A pops and pushes 'd', B edits element 2
/// in place.
pub async fn pop_and_push_then_a_stale_edit() {
    let t = TestDb::new().await;
    let m = Tagged::model(&t.db);
    let id = tagged(&m, &["a", "c", "a"]).await;
    let (mut a, mut b) = two_copies(&m, id).await;
    a.tags.pop();
    a.tags.push("d".into());
    a.save().await.unwrap();
    b.tags[2] = "b".into();
    assert_eq!(
        b.changes(),
        Some((
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_is("tags", 2, "a")]
            ),
            doc! { "$set": { "tags.2": "b" } }
        ))
    );
    expect_version(b.save().await, &["tags.2"]);
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "tags": ["a", "c", "d"], "__v": 0 }
    );
    assert_eq!(a.tags, strings(&["a", "c", "d"]));
    assert_eq!(b.tags, strings(&["a", "c", "b"]));
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "position_noted")]
struct Noted {
    #[serde(rename = "_id")]
    id: ObjectId,
    comment: String,
    tags: Vec<String>,
}

/// The third history: A assigns the array with its last element
/// changed; B first saves an edit of another field (which lands), then
/// edits the last element in place: that save fails, guarded by the
/// element B loaded, not by what its own first save left.
pub async fn an_assignment_then_a_stale_edit_after_another_save() {
    let t = TestDb::new().await;
    let m = Noted::model(&t.db);
    let id = ObjectId::new();
    m.create(Noted {
        id,
        comment: "c0".into(),
        tags: strings(&["a", "b", "c", "d"]),
    })
    .await
    .unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.tags = strings(&["a", "b", "c", "b"]);
    assert_eq!(
        a.changes(),
        Some((
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_is("tags", 3, "d")]
            ),
            doc! { "$set": { "tags.3": "b" } }
        ))
    );
    a.save().await.unwrap();
    b.comment = "edited".into();
    assert_eq!(
        b.changes(),
        Some((doc! { "_id": id }, doc! { "$set": { "comment": "edited" } }))
    );
    b.save().await.unwrap();
    b.tags[3] = "a".into();
    assert_eq!(
        b.changes(),
        Some((
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_is("tags", 3, "d")]
            ),
            doc! { "$set": { "tags.3": "a" } }
        ))
    );
    expect_version(b.save().await, &["tags.3"]);
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "comment": "edited", "tags": ["a", "b", "c", "b"], "__v": 0 }
    );
    assert_eq!(b.tags, strings(&["a", "b", "c", "a"]));
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Reply {
    #[serde(rename = "_id")]
    id: ObjectId,
    text: String,
    votes: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "position_threads")]
struct Thread {
    #[serde(rename = "_id")]
    id: ObjectId,
    replies: Vec<Reply>,
}

fn reply(text: &str) -> Reply {
    Reply {
        id: ObjectId::new(),
        text: text.into(),
        votes: 0,
    }
}

/// Sub-documents: different elements, and different fields of one
/// element, edited by two copies all land; the same field of one element
/// is refused to the stale copy; and an element replaced in place by
/// another writer (as Mongoose does without a bump) refuses a stale edit
/// of the element it replaced.
pub async fn sub_documents_edited_in_place() {
    let t = TestDb::new().await;
    let m = Thread::model(&t.db);
    let id = ObjectId::new();
    let replies = vec![reply("a"), reply("b")];
    let (x, y) = (replies[0].id, replies[1].id);
    m.create(Thread { id, replies }).await.unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.replies[0].text = "A".into();
    b.replies[1].text = "B".into();
    a.save().await.unwrap();
    b.save().await.unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.replies[0].text = "AA".into();
    b.replies[0].votes = 5;
    assert_eq!(
        b.changes(),
        Some((
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_has(
                    "replies",
                    0,
                    &[("_id", Some(x.into())), ("votes", Some(0.into()))]
                )]
            ),
            doc! { "$set": { "replies.0.votes": 5 } }
        ))
    );
    a.save().await.unwrap();
    b.save().await.unwrap();
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "replies": [
            { "_id": x, "text": "AA", "votes": 5 },
            { "_id": y, "text": "B", "votes": 0 },
        ], "__v": 0 }
    );
    // The same field of one element: the stale copy is refused.
    let (mut a, mut b) = two_copies(&m, id).await;
    a.replies[1].text = "first".into();
    a.save().await.unwrap();
    b.replies[1].text = "second".into();
    expect_version(b.save().await, &["replies.1.text"]);
    // Another writer replaces element 1 in place, keeping its text.
    let (mut c, _) = two_copies(&m, id).await;
    let z = ObjectId::new();
    m.collection()
        .update_one(
            doc! { "_id": id },
            doc! { "$set": { "replies.1": { "_id": z, "text": "first", "votes": 0 } } },
        )
        .await
        .unwrap();
    c.replies[1].votes = 9;
    expect_version(c.save().await, &["replies.1.votes"]);
    assert_eq!(
        stored(&m, id).await.get_array("replies").unwrap()[1],
        Bson::from(doc! { "_id": z, "text": "first", "votes": 0 })
    );
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Slot {
    n: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "position_slots")]
struct Board {
    #[serde(rename = "_id")]
    id: ObjectId,
    slots: Vec<Option<Slot>>,
    xs: Vec<f64>,
}

/// Elements that are null, documents or NaN: a null element filled by two
/// copies (the query form `{"slots.2": null}` would match this array of
/// sub-documents anyway, none having a field "2"), and a NaN element,
/// which equals itself, edited by a fresh copy and refused to a stale one.
pub async fn null_document_and_nan_elements() {
    let t = TestDb::new().await;
    let m = Board::model(&t.db);
    let id = ObjectId::new();
    m.create(Board {
        id,
        slots: vec![Some(Slot { n: 1 }), Some(Slot { n: 2 }), None],
        xs: vec![f64::NAN, 1.0],
    })
    .await
    .unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.slots[2] = Some(Slot { n: 3 });
    assert_eq!(
        a.changes(),
        Some((
            in_place(
                doc! { "_id": id, "__v": 0 },
                vec![element_is("slots", 2, Bson::Null)]
            ),
            doc! { "$set": { "slots.2": { "n": 3 } } }
        ))
    );
    a.save().await.unwrap();
    b.slots[2] = Some(Slot { n: 4 });
    expect_version(b.save().await, &["slots.2"]);
    assert_eq!(
        stored(&m, id).await.get_array("slots").unwrap()[2],
        Bson::from(doc! { "n": 3 })
    );
    let (mut a, mut b) = two_copies(&m, id).await;
    a.xs[0] = 2.5;
    a.save().await.unwrap();
    b.xs[0] = 7.0;
    expect_version(b.save().await, &["xs.0"]);
    b.reload().await.unwrap();
    b.xs[0] = f64::NAN;
    b.save().await.unwrap();
    let (mut c, _) = two_copies(&m, id).await;
    c.xs[0] = 4.0;
    c.save().await.unwrap();
    assert_eq!(
        stored(&m, id).await.get_array("xs").unwrap(),
        &vec![Bson::Double(4.0), Bson::Double(1.0)]
    );
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "position_listed", optimistic_concurrency(include(title)))]
struct Listed {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    tags: Vec<String>,
}

/// Under `optimistic_concurrency(include(title))` a change of `tags` is
/// not versioned at all, so the guard is its only check: a stale edit is
/// `Error::Version`, and the same edit of a deleted document is
/// `Error::NotFound` (one read tells them apart, as for every guard).
pub async fn the_guard_alone_tells_a_stale_copy_from_a_deleted_document() {
    let t = TestDb::new().await;
    let m = Listed::model(&t.db);
    let id = ObjectId::new();
    m.create(Listed {
        id,
        title: "t".into(),
        tags: strings(&["a", "b", "c"]),
    })
    .await
    .unwrap();
    let (mut a, mut b) = two_copies(&m, id).await;
    a.tags.pop();
    a.tags.push("z".into());
    a.save().await.unwrap();
    b.tags[2] = "y".into();
    assert_eq!(
        b.changes(),
        Some((
            in_place(
                with_parents(doc! { "_id": id }, &["tags"]),
                vec![element_is("tags", 2, "c")]
            ),
            doc! { "$set": { "tags.2": "y" } }
        ))
    );
    expect_version(b.save().await, &["tags.2"]);
    m.collection().delete_one(doc! { "_id": id }).await.unwrap();
    a.tags[2] = "w".into();
    match a.save().await {
        Err(odm::Error::NotFound(_)) => {}
        other => panic!("expected Error::NotFound, got {other:?}"),
    }
    t.finish().await;
}

/// `bulk_save` builds each statement with `save()`'s builder: a stale
/// element edit in a batch fails with `Error::Version` while the batch's
/// other `Doc`s land (both ways of sending a batch).
pub async fn a_batch_carries_the_guard(path: BulkPath) {
    let t = TestDb::new().await;
    let m = Tagged::model(&t.db);
    let (one, two) = (
        tagged(&m, &["a", "b", "c"]).await,
        tagged(&m, &["a", "b", "c"]).await,
    );
    let (mut a, stale) = two_copies(&m, one).await;
    a.tags.pop();
    a.tags.push("x".into());
    a.save().await.unwrap();
    let mut docs = vec![stale, m.find_by_id(two).await.unwrap().unwrap()];
    for doc in &mut docs {
        doc.tags[2] = "y".into();
    }
    let outcomes = m.bulk_save(&mut docs).path(path).await.unwrap();
    assert!(
        matches!(&outcomes[0], Err(odm::Error::Version(e)) if e.modified_paths == ["tags.2"]),
        "{outcomes:?}"
    );
    assert!(outcomes[1].is_ok(), "{outcomes:?}");
    assert_eq!(
        stored(&m, one).await.get_array("tags").unwrap()[2],
        Bson::from("x")
    );
    assert_eq!(
        stored(&m, two).await.get_array("tags").unwrap()[2],
        Bson::from("y")
    );
    assert!(
        docs[0].changes().is_some(),
        "the stale Doc keeps its change"
    );
    t.finish().await;
}

/// Many rounds of a pop-and-push racing a stale copy's edit of the same
/// element, both sent at once: exactly one lands each round, and the
/// stored element is the winner's.
pub async fn a_pop_and_push_racing_an_edit_of_the_element() {
    let t = TestDb::new().await;
    let m = Tagged::model(&t.db);
    let rounds = 24;
    let (mut popped, mut edited) = (0, 0);
    for round in 0..rounds {
        let id = tagged(&m, &["d", "a", "b"]).await;
        let (mut a, mut b) = two_copies(&m, id).await;
        a.tags.pop();
        a.tags.push(format!("p{round}"));
        b.tags[2] = format!("e{round}");
        let (ra, rb) = tokio::join!(a.save().into_future(), b.save().into_future());
        let last = stored(&m, id).await.get_array("tags").unwrap()[2].clone();
        match (ra, rb) {
            (Ok(()), Err(odm::Error::Version(_))) => {
                popped += 1;
                assert_eq!(last, Bson::from(format!("p{round}")));
            }
            (Err(odm::Error::Version(_)), Ok(())) => {
                edited += 1;
                assert_eq!(last, Bson::from(format!("e{round}")));
            }
            other => panic!("round {round}: not exactly one landed: {other:?}"),
        }
    }
    assert_eq!(popped + edited, rounds);
    eprintln!("pop and push won {popped}, the edit won {edited} of {rounds}");
    t.finish().await;
}
