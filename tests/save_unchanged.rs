//! A save skips the top-level fields that did not change without
//! serializing them: it compares them in memory with a copy taken at the
//! snapshot, part for part (vectors, maps and embedded structs that derive
//! `Fields`, of standard or BSON types). What it sends and stores is what
//! serializing everything would give. Seen here through a field written by
//! `serialize_with`, which counts its calls on this thread.

use crate::common;

use common::counted::{self, assert_stored_is, written};
use common::*;
use odm::bson::oid::ObjectId;
use odm::bson::Bson;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

/// An embedded struct odm can compare: it derives `Fields`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
struct Tally {
    label: String,
    #[serde(serialize_with = "counted::counted")]
    n: i32,
}

/// The same, without `Fields`: odm cannot tell it unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Opaque {
    label: String,
    #[serde(serialize_with = "counted::counted")]
    n: i32,
}

/// An embedded struct whose `Clone` does not copy every part: a cache
/// field comes back empty.
#[derive(Debug, PartialEq, Serialize, Deserialize, odm::Fields)]
struct Cached {
    key: String,
    hits: u32,
}

impl Clone for Cached {
    fn clone(&self) -> Self {
        Cached {
            key: self.key.clone(),
            hits: 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "unchanged_boards", optimistic_concurrency)]
struct Board {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    score: f64,
    weights: Vec<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    tallies: Vec<Tally>,
    opaque: Vec<Opaque>,
    cached: Vec<Cached>,
}

fn board() -> Board {
    let tally = |i: i32| Tally {
        label: format!("t{i}"),
        n: i,
    };
    Board {
        id: ObjectId::new(),
        title: "first".into(),
        score: 0.0,
        weights: vec![0.0, 1.0],
        note: None,
        tallies: (0..50).map(tally).collect(),
        opaque: vec![Opaque {
            label: "o".into(),
            n: 1,
        }],
        cached: vec![Cached {
            key: "k".into(),
            hits: 5,
        }],
    }
}

#[tokio::test]
async fn a_save_serializes_only_what_it_cannot_tell_unchanged() {
    let t = TestDb::new().await;
    let boards = Board::model(&t.db);
    let id = boards.create(board()).await.unwrap().id;
    let mut doc = boards.find_by_id(id).await.unwrap().unwrap();
    written();

    // The first change takes the snapshot: everything is serialized once.
    doc.title = "second".into();
    assert_eq!(written(), 51, "the snapshot: 50 tallies and the opaque one");
    let expected = doc! { "$set": { "title": "second" }, "$inc": { "__v": 1 } };
    assert_eq!(doc.changes().unwrap().1, expected);
    // The first two saves since the load serialize everything (a copy
    // would not pay for a `Doc` saved once); the second takes the copy.
    assert_eq!(written(), 51);
    doc.save().await.unwrap();
    assert_eq!(written(), 51);
    assert_stored_is(&boards, &doc).await;
    doc.title = "third".into();
    doc.save().await.unwrap();
    assert_eq!(written(), 51);
    assert_stored_is(&boards, &doc).await;

    // From the third save on, the tallies stay unserialized.
    doc.title = "fourth".into();
    let expected = doc! { "$set": { "title": "fourth" }, "$inc": { "__v": 1 } };
    assert_eq!(doc.changes().unwrap().1, expected);
    assert_eq!(written(), 1, "only the opaque tally is serialized again");
    doc.save().await.unwrap();
    assert_eq!(written(), 1, "the tallies are copied from the snapshot");
    assert_stored_is(&boards, &doc).await;

    // A changed tally is seen, and only its field is written. The
    // tallies before it are copied from the snapshot.
    doc.tallies[7].n = 70;
    let update = doc.changes().unwrap().1;
    assert_eq!(
        update,
        doc! { "$set": { "tallies.7.n": 70 }, "$inc": { "__v": 1 } }
    );
    written();
    doc.save().await.unwrap();
    assert_eq!(
        written(),
        44,
        "the tallies from the changed one on, and the opaque one"
    );
    assert_stored_is(&boards, &doc).await;
    assert_eq!(doc.tallies[7].n, 70);

    // A push, then a field serde skips when empty, set and unset.
    doc.tallies.push(Tally {
        label: "new".into(),
        n: 50,
    });
    doc.note = Some("hello".into());
    written();
    doc.save().await.unwrap();
    assert_eq!(written(), 2, "the pushed tally and the opaque one");
    assert_stored_is(&boards, &doc).await;
    doc.note = None;
    doc.save().await.unwrap();
    assert_stored_is(&boards, &doc).await;
    assert!(!stored(&boards, id).await.contains_key("note"));
    t.finish().await;
}

/// Top-level scalars only, one of them counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "unchanged_scores", optimistic_concurrency)]
struct Score {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    #[serde(serialize_with = "counted::counted")]
    total: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[tokio::test]
async fn a_top_level_scalar_is_compared_too() {
    // Once the copy is taken, a scalar that did not change is passed over
    // like a vector: not serialized, its bytes kept from the snapshot.
    let t = TestDb::new().await;
    let scores = Score::model(&t.db);
    let score = Score {
        id: ObjectId::new(),
        name: "a".into(),
        total: 1,
        note: None,
    };
    let id = scores.create(score).await.unwrap().id;
    let mut doc = scores.find_by_id(id).await.unwrap().unwrap();
    for name in ["b", "c"] {
        doc.name = name.into();
        doc.save().await.unwrap();
    }
    written();
    doc.name = "d".into();
    assert_eq!(
        doc.changes().unwrap().1,
        doc! { "$set": { "name": "d" }, "$inc": { "__v": 1 } }
    );
    doc.save().await.unwrap();
    assert_eq!(written(), 0, "total did not change: not serialized");
    assert_stored_is(&scores, &doc).await;
    // A changed scalar is written, and the copy follows it.
    doc.total = 2;
    assert_eq!(
        doc.changes().unwrap().1,
        doc! { "$set": { "total": 2 }, "$inc": { "__v": 1 } }
    );
    assert_eq!(written(), 1);
    doc.save().await.unwrap();
    assert_stored_is(&scores, &doc).await;
    doc.name = "e".into();
    doc.save().await.unwrap();
    assert_eq!(written(), 0, "the copy holds the new total");
    assert_stored_is(&scores, &doc).await;
    // A field serde skips: set, then unset, each seen.
    doc.note = Some("n".into());
    doc.save().await.unwrap();
    assert_stored_is(&scores, &doc).await;
    doc.note = None;
    assert_eq!(
        doc.changes().unwrap().1,
        doc! { "$unset": { "note": "" }, "$inc": { "__v": 1 } }
    );
    doc.save().await.unwrap();
    assert_stored_is(&scores, &doc).await;
    assert!(!stored(&scores, id).await.contains_key("note"));
    t.finish().await;
}

#[tokio::test]
async fn negative_zero_is_a_change() {
    // `0.0 == -0.0`, but they are different doubles in BSON.
    let t = TestDb::new().await;
    let boards = Board::model(&t.db);
    let id = boards.create(board()).await.unwrap().id;
    let mut doc = boards.find_by_id(id).await.unwrap().unwrap();
    doc.score = -0.0;
    assert_eq!(
        doc.changes().unwrap().1,
        doc! { "$set": { "score": -0.0 }, "$inc": { "__v": 1 } }
    );
    doc.save().await.unwrap();
    assert!(stored_f64(&boards, id, "score").await.is_sign_negative());
    // And back: the copy holds -0.0 now.
    doc.score = 0.0;
    doc.save().await.unwrap();
    assert!(stored_f64(&boards, id, "score").await.is_sign_positive());
    // In a vector, which a save compares instead of serializing.
    doc.weights[0] = -0.0;
    let update = doc.changes().unwrap().1;
    assert_eq!(
        update,
        doc! { "$set": { "weights.0": -0.0 }, "$inc": { "__v": 1 } }
    );
    doc.save().await.unwrap();
    assert_stored_is(&boards, &doc).await;
    assert!(stored_f64(&boards, id, "weights.0")
        .await
        .is_sign_negative());
    doc.weights[0] = 0.0;
    doc.save().await.unwrap();
    assert!(stored_f64(&boards, id, "weights.0")
        .await
        .is_sign_positive());
    t.finish().await;
}

/// The stored double at `path` (a top-level key, or `key.index`).
async fn stored_f64(boards: &Model<Board>, id: ObjectId, path: &str) -> f64 {
    let stored = stored(boards, id).await;
    let value = match path.split_once('.') {
        Some((key, i)) => &stored.get_array(key).unwrap()[i.parse::<usize>().unwrap()],
        None => stored.get(path).unwrap(),
    };
    match value {
        Bson::Double(x) => *x,
        other => panic!("{path} stored as {other:?}"),
    }
}

#[tokio::test]
async fn a_clone_that_drops_a_part_does_not_hide_a_change() {
    // The copy's `hits` is 0 after `Cached::clone`. Setting the value's
    // `hits` to 0 must still be written: odm checks each copied field
    // against the value and compares nothing it could not copy exactly.
    let t = TestDb::new().await;
    let boards = Board::model(&t.db);
    let id = boards.create(board()).await.unwrap().id;
    let mut doc = boards.find_by_id(id).await.unwrap().unwrap();
    // Two saves: the second takes the copy.
    for title in ["a", "b"] {
        doc.title = title.into();
        doc.save().await.unwrap();
    }
    doc.cached[0].hits = 0;
    let update = doc.changes().unwrap().1;
    assert_eq!(
        update,
        doc! { "$set": { "cached.0.hits": 0_i64 }, "$inc": { "__v": 1 } }
    );
    doc.save().await.unwrap();
    assert_stored_is(&boards, &doc).await;
    // Again after a save, when the copy is refreshed from the value.
    doc.cached[0].hits = 9;
    doc.save().await.unwrap();
    doc.cached[0].hits = 0;
    doc.save().await.unwrap();
    assert_stored_is(&boards, &doc).await;
    t.finish().await;
}

#[tokio::test]
async fn a_failed_save_keeps_the_change_for_the_next() {
    // A stale copy's save fails and the copy keeps its changes; after a
    // reload, the same edit saves.
    let t = TestDb::new().await;
    let boards = Board::model(&t.db);
    let id = boards.create(board()).await.unwrap().id;
    let (mut a, mut b) = two_copies(&boards, id).await;
    a.tallies.remove(0);
    a.save().await.unwrap();
    b.tallies[3].n = 33;
    b.title = "stale".into();
    let err = b.save().await.unwrap_err();
    assert!(matches!(err, odm::Error::Version(_)), "{err}");
    // Nothing was written, and the copy still holds both changes.
    assert_eq!(b.tallies[3].n, 33);
    let update = b.changes().unwrap().1;
    assert_eq!(
        update
            .get_document("$set")
            .unwrap()
            .get_str("title")
            .unwrap(),
        "stale"
    );
    b.reload().await.unwrap();
    assert_eq!(b.tallies[3].n, 4, "the stored tally, one removed before it");
    b.tallies[3].n = 33;
    b.save().await.unwrap();
    assert_stored_is(&boards, &b).await;
    t.finish().await;
}
