//! Issue 9, item 2: removals judged by MongoDB's equality, guarded against
//! other copies' pushes.

use odm::bson::doc;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

use crate::save_regressions::{assert_stored, raw};

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

pub async fn removing_a_value_keeps_the_equal_values_the_doc_keeps() {
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

pub async fn a_stale_removal_cannot_pull_a_value_another_copy_pushed() {
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
