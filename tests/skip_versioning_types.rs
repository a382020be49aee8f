//! `skip_versioning` on any array type: a type alias, an `Option` of one,
//! and a newtype that implements `odm::BsonArray`. The derive checks the
//! type (a trait bound), not its spelling.

use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

type Tags = Vec<String>;

/// A newtype stored as an array.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
struct Scores(Vec<i32>);

impl odm::BsonArray for Scores {}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "boards")]
struct Board {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(skip_versioning)]
    tags: Tags,
    #[odm(skip_versioning)]
    labels: Option<Tags>,
    #[odm(skip_versioning)]
    scores: Scores,
    /// Versioned as usual, to show the difference.
    history: Vec<String>,
}

fn board() -> Board {
    Board {
        id: 1,
        tags: vec!["a".into(), "b".into()],
        labels: Some(vec!["x".into()]),
        scores: Scores(vec![3, 1, 2]),
        history: vec!["created".into()],
    }
}

#[tokio::test]
async fn changes_to_skipped_arrays_of_any_spelling_touch_no_version() {
    let t = TestDb::new().await;
    let boards = Board::model(&t.db);
    boards.create(board()).await.unwrap();
    let mut a = boards.find_by_id(1_i64).await.unwrap().unwrap();
    let mut b = boards.find_by_id(1_i64).await.unwrap().unwrap();

    // A rewrites every skipped array: whole-array sets, no version check or bump.
    a.tags.reverse();
    a.labels = Some(vec!["y".into(), "z".into()]);
    a.scores.0.sort();
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": 1_i64 },
            doc! { "$set": {
                "tags": ["b", "a"],
                "labels": ["y", "z"],
                "scores": [1, 2, 3],
            } }
        ))
    );
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(0));

    // B, loaded before A's save, pushes onto the alias field: no version
    // effect, so it lands beside A's rewrite.
    b.tags.push("c".into());
    assert_eq!(
        b.changes(),
        Some((
            doc! { "_id": 1_i64 },
            doc! { "$push": { "tags": { "$each": ["c"] } } }
        ))
    );
    b.save().await.unwrap();

    let stored = boards.find_by_id(1_i64).await.unwrap().unwrap();
    assert_eq!(stored.tags, ["b", "a", "c"]);
    assert_eq!(stored.labels, Some(vec!["y".to_string(), "z".to_string()]));
    assert_eq!(stored.scores, Scores(vec![1, 2, 3]));
    assert_eq!(stored.version(), Some(0));

    // The same rewrite of a versioned array is checked and bumped: a stale
    // copy's rewrite fails.
    let mut c = boards.find_by_id(1_i64).await.unwrap().unwrap();
    let mut d = boards.find_by_id(1_i64).await.unwrap().unwrap();
    c.history = vec!["changed".into()];
    c.save().await.unwrap();
    assert_eq!(c.version(), Some(1));
    d.history = vec!["stale".into()];
    assert!(matches!(d.save().await, Err(Error::Version(_))));
    t.finish().await;
}
