//! The guard compares with the stored field order, which a value's own order
//! can leave: a map that holds the same keys in another order (a `HashMap`
//! that rehashed, or one built anew) is saved key by key, so the server keeps
//! its order; a copy saved untouched (`increment()`) keeps what it read.

use std::collections::BTreeMap;

use odm::bson::{doc, Bson};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

use crate::save_rewrite_guard::common::stored;

/// A map that serializes its entries in the order it holds them (as a
/// `HashMap` does in an order of its own), so a test can reorder it.
#[derive(Debug, Clone, PartialEq, Default)]
struct InOrder(Vec<(String, i32)>);

impl Serialize for InOrder {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InOrder {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = InOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<InOrder, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = m.next_entry()? {
                    out.push(entry);
                }
                Ok(InOrder(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rewrite_order")]
struct Counted {
    #[serde(rename = "_id")]
    id: ObjectId,
    n: i32,
    counters: InOrder,
    sorted: BTreeMap<String, i32>,
    #[serde(default)]
    profile: Card,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
struct Card {
    name: String,
    age: i32,
}

fn entries(xs: &[(&str, i32)]) -> InOrder {
    InOrder(xs.iter().map(|(k, v)| (k.to_string(), *v)).collect())
}

pub async fn a_map_reordered_in_memory_is_rewritten_against_the_stored_order() {
    let t = TestDb::new().await;
    let m = Counted::model(&t.db);
    let id = ObjectId::new();
    m.create(Counted {
        id,
        n: 0,
        counters: entries(&[("a", 1), ("b", 2)]),
        sorted: BTreeMap::new(),
        profile: Card::default(),
    })
    .await
    .unwrap();
    let mut a = m.find_by_id(id).await.unwrap().unwrap();
    // The same keys in another order, one value changed: saved key by key.
    a.counters = entries(&[("b", 2), ("a", 3)]);
    let (_, update) = a.changes().unwrap();
    assert_eq!(update, doc! { "$set": { "counters.a": 3 } });
    a.save().await.unwrap();
    assert_eq!(
        stored(&m, id).await.get_document("counters").unwrap(),
        &doc! { "a": 3, "b": 2 }
    );
    // Keys added are sent in the order MongoDB applies them (by name), so
    // every server appends them in that order, whatever the value's.
    a.counters.0.insert(0, ("z".into(), 1));
    a.counters.0.push(("c".into(), 2));
    let (_, update) = a.changes().unwrap();
    let sent: Vec<&String> = update.get_document("$set").unwrap().keys().collect();
    assert_eq!(sent, ["counters.c", "counters.z"]);
    a.save().await.unwrap();
    let order = |d: &odm::bson::Document| -> Vec<String> {
        d.get_document("counters")
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(order(&stored(&m, id).await), ["a", "b", "c", "z"]);
    // Nothing else changes the store: a rewrite of the map must land, its
    // guard holding the order the store has, not the value's.
    a.counters.0.push(("x.y".into(), 9));
    let (filter, _) = a.changes().unwrap();
    assert_eq!(
        filter.get("counters"),
        Some(&Bson::Document(
            doc! { "$eq": { "a": 3, "b": 2, "c": 2, "z": 1 } }
        )),
        "{filter}"
    );
    a.save().await.unwrap();
    assert_eq!(order(&stored(&m, id).await), ["z", "b", "a", "c", "x.y"]);
    assert_eq!(*m.find_by_id(id).await.unwrap().unwrap(), *a);
}

pub async fn a_copy_saved_untouched_keeps_the_stored_order_and_missing_fields() {
    let t = TestDb::new().await;
    let m = Counted::model(&t.db);
    let id = ObjectId::new();
    // Stored by another writer: `sorted` out of the BTreeMap's order, no
    // `profile` (filled in by `#[serde(default)]`).
    m.collection()
        .insert_one(doc! {
            "_id": id, "n": 0, "counters": {}, "sorted": { "b": 1, "a": 2 }, "__v": 0,
        })
        .await
        .unwrap();
    let mut a = m.find_by_id(id).await.unwrap().unwrap();
    a.increment();
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(1));
    // `profile` is still missing from the store: a change under it sets it
    // whole, never `profile.name` alone (a fragment that would not load).
    a.profile.name = "ann".into();
    let (_, update) = a.changes().unwrap();
    assert_eq!(
        update.get_document("$set").unwrap().get("profile"),
        Some(&Bson::Document(doc! { "name": "ann", "age": 0 })),
        "{update}"
    );
    a.save().await.unwrap();
    assert_eq!(
        stored(&m, id).await.get_document("profile").unwrap(),
        &doc! { "name": "ann", "age": 0 }
    );
    // The map rewrite's guard holds the stored order `{b, a}`.
    a.sorted.insert("x.y".into(), 3);
    let (filter, _) = a.changes().unwrap();
    assert_eq!(
        filter.get("sorted"),
        Some(&Bson::Document(doc! { "$eq": { "b": 1, "a": 2 } })),
        "{filter}"
    );
    a.save().await.unwrap();
    let fresh = m.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(*fresh, *a);
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rewrite_order_list")]
struct Listed {
    #[serde(rename = "_id")]
    id: ObjectId,
    cards: Vec<Card>,
}

pub async fn a_push_onto_an_array_stored_in_another_order_keeps_that_order_for_the_guard() {
    let t = TestDb::new().await;
    let m = Listed::model(&t.db);
    let id = ObjectId::new();
    // Stored by another writer: the card's keys in another order than the
    // model writes them, so the copy keeps the stored form apart.
    m.collection()
        .insert_one(doc! { "_id": id, "cards": [{ "age": 1, "name": "a" }], "__v": 0 })
        .await
        .unwrap();
    let mut a = m.find_by_id(id).await.unwrap().unwrap();
    a.cards.push(Card {
        name: "b".into(),
        age: 2,
    });
    let (_, update) = a.changes().unwrap();
    assert_eq!(
        update,
        doc! { "$push": { "cards": { "$each": [{ "name": "b", "age": 2 }] } }, "$inc": { "__v": 1 } }
    );
    a.save().await.unwrap();
    // The store appended the pushed card to the card it holds as it was:
    // a rewrite of the array must be guarded by exactly that.
    a.cards.remove(0);
    let (filter, _) = a.changes().unwrap();
    // As text: a `Document` compares equal whatever its keys' order.
    let guard = doc! { "$eq": [{ "age": 1, "name": "a" }, { "name": "b", "age": 2 }] };
    assert_eq!(
        filter.get("cards").map(Bson::to_string),
        Some(Bson::Document(guard).to_string()),
        "{filter}"
    );
    a.save().await.unwrap();
    assert_eq!(
        stored(&m, id).await,
        doc! { "_id": id, "cards": [{ "name": "b", "age": 2 }], "__v": 2 }
    );
    assert_eq!(*m.find_by_id(id).await.unwrap().unwrap(), *a);
}
