//! Found by the random histories: a stale copy writing under a document
//! another copy removed.

use std::collections::BTreeMap;

use odm::bson::doc;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

use crate::save_regressions::assert_stored;
use crate::save_regressions::common::{element_has, in_place, rewriting};

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

pub async fn a_stale_write_under_a_removed_document_fails_instead_of_storing_a_fragment() {
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
            // requires what this copy loaded there, and the positional
            // guard the slot it loaded at 0.
            in_place(
                rewriting(
                    doc! { "_id": id, "__v": 2 },
                    "slots.0.inner",
                    doc! { "x": 1, "y": 2 }
                ),
                vec![element_has(
                    "slots",
                    0,
                    &[("_id", Some(a.slots[0].id.into()))]
                )]
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
