//! Issue 9, item 1: map keys that cannot be paths (a `.` or a leading `$`),
//! in a map field (saved whole) and at the top level (refused before sending).

use std::collections::BTreeMap;

use odm::bson::doc;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

use crate::save_regressions::common::Monitored;
use crate::save_regressions::{assert_stored, raw};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "counters")]
struct Counters {
    #[serde(rename = "_id")]
    id: ObjectId,
    counts: BTreeMap<String, i32>,
    nested: BTreeMap<String, BTreeMap<String, i32>>,
}

pub async fn a_map_key_that_is_not_a_path_saves_its_whole_map() {
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "loose")]
struct Loose {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    #[serde(flatten)]
    rest: BTreeMap<String, i32>,
}

pub async fn a_top_level_key_that_is_not_a_path_is_refused_before_sending() {
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
