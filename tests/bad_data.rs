//! Bad stored data, written with the raw driver as other code or an old
//! release could have: a value of the wrong type, a missing required
//! field, an unknown extra field, a huge array. Every loader (`find`,
//! `find_one`, `find_by_id`) returns `Error::Deserialize` naming the
//! collection, the document's id and the field; an unknown field survives
//! saves; a 100,000-element array loads, saves one change, and errors
//! cleanly when one element is bad.
//!
//! Version keys that are strings, negative, or non-integral doubles (and
//! the integral `3.0`, which loads) are covered for every loader in
//! `tests/loading_shapes.rs`.

use crate::common;

use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "records", optimistic_concurrency)]
struct Record {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    count: i32,
    meta: Meta,
    items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Meta {
    city: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Item {
    label: String,
    qty: u8,
}

/// A good stored record, as the raw driver writes it.
fn good(id: ObjectId) -> BsonDocument {
    doc! {
        "_id": id,
        "name": "a",
        "count": 1,
        "meta": { "city": "Oslo" },
        "items": [{ "label": "x", "qty": 1 }, { "label": "y", "qty": 2 }],
        "__v": 0,
    }
}

/// Stores `bad` beside the good documents, asserts that every loader
/// refuses it naming `path`, with exactly `message`, and that `find` over
/// the whole collection fails on it too; then removes it.
async fn refused_by_every_loader(
    records: &Model<Record>,
    bad: BsonDocument,
    path: &str,
    message: &str,
) {
    let id = bad.get_object_id("_id").unwrap();
    insert(records, bad).await;
    let text = |message: &str| {
        format!(
            "cannot load document \"{}\" from collection \"records\": field \"{path}\": {message}",
            id.to_hex()
        )
    };
    // The text hides the value serde quotes, unless values are shown.
    let hidden = text(&masked(message));
    let text = text(message);
    let results = [
        ("find_by_id", records.find_by_id(id).await.map(drop)),
        (
            "find_one",
            records.find_one(doc! { "_id": id }).await.map(drop),
        ),
        ("find", records.find(doc! { "_id": id }).await.map(drop)),
        ("find all", records.find(doc! {}).await.map(drop)),
    ];
    for (loader, result) in results {
        let err = result.expect_err(loader);
        let Error::Deserialize(e) = &err else {
            panic!("{loader}: expected Error::Deserialize, got {err:?}");
        };
        assert_eq!(
            (
                e.collection.as_str(),
                &e.id,
                e.path.as_str(),
                e.message.as_str()
            ),
            ("records", &Bson::ObjectId(id), path, message),
            "{loader}"
        );
        assert_eq!(err.to_string(), hidden, "{loader}");
        assert_eq!(common::with_values(|| err.to_string()), text, "{loader}");
    }
    records
        .collection()
        .delete_one(doc! { "_id": id })
        .await
        .unwrap();
}

/// `message` with the value serde quotes (after the kind, before
/// `, expected`) as `?`.
fn masked(message: &str) -> String {
    let Some(quote) = message.find(['"', '`']) else {
        return message.to_string();
    };
    if message.starts_with("missing field") {
        return message.to_string();
    }
    let end = message.find(", expected").unwrap();
    format!("{}?{}", &message[..quote], &message[end..])
}

async fn insert(records: &Model<Record>, document: BsonDocument) {
    records.collection().insert_one(document).await.unwrap();
}

#[tokio::test]
async fn a_value_of_the_wrong_type_is_named_by_every_loader() {
    let t = TestDb::new().await;
    let records = Record::model(&t.db);
    insert(&records, good(ObjectId::new())).await;
    let cases: [(&str, Bson, &str, &str); 4] = [
        (
            "count",
            Bson::String("three".into()),
            "count",
            "invalid type: string \"three\", expected i32",
        ),
        (
            "count",
            Bson::Int64(1 << 40),
            "count",
            "invalid value: integer `1099511627776`, expected i32",
        ),
        (
            "meta",
            Bson::Document(doc! { "city": 7 }),
            "meta.city",
            "invalid type: integer `7`, expected a string",
        ),
        (
            "items",
            Bson::Array(vec![
                Bson::Document(doc! { "label": "x", "qty": 1 }),
                Bson::Document(doc! { "label": "y", "qty": 300 }),
            ]),
            "items.1.qty",
            "invalid value: integer `300`, expected u8",
        ),
    ];
    for (field, value, path, message) in cases {
        let mut bad = good(ObjectId::new());
        bad.insert(field, value);
        refused_by_every_loader(&records, bad, path, message).await;
    }
    t.finish().await;
}

#[tokio::test]
async fn a_missing_required_field_is_named_by_every_loader() {
    let t = TestDb::new().await;
    let records = Record::model(&t.db);
    insert(&records, good(ObjectId::new())).await;
    for (path, message) in [
        ("name", "missing field `name`"),
        ("meta.city", "missing field `city`"),
        ("items.0.qty", "missing field `qty`"),
    ] {
        let mut bad = good(ObjectId::new());
        match path {
            "name" => {
                bad.remove("name");
            }
            "meta.city" => {
                bad.get_document_mut("meta").unwrap().remove("city");
            }
            _ => {
                let items = bad.get_array_mut("items").unwrap();
                items[0].as_document_mut().unwrap().remove("qty");
            }
        }
        refused_by_every_loader(&records, bad, path, message).await;
    }
    t.finish().await;
}

/// Unknown fields at the top, in a sub-document and in an array element
/// load, and survive saves of changes next to them.
#[tokio::test]
async fn unknown_extra_fields_survive_saves() {
    let t = TestDb::new().await;
    let records = Record::model(&t.db);
    let id = ObjectId::new();
    let mut stored = good(id);
    stored.insert("legacy", doc! { "keep": [1, 2], "me": "too" });
    stored
        .get_document_mut("meta")
        .unwrap()
        .insert("zip", "0150");
    stored.get_array_mut("items").unwrap()[1]
        .as_document_mut()
        .unwrap()
        .insert("sku", "Y-2");
    insert(&records, stored.clone()).await;

    let mut record = records.find_by_id(id).await.unwrap().unwrap();
    record.count += 1;
    record.meta.city = "Bergen".into();
    record.items[1].qty = 9;
    record.save().await.unwrap();
    record.name = "b".into();
    record.save().await.unwrap();

    let mut expected = stored;
    expected.insert("name", "b");
    expected.insert("count", 2);
    expected
        .get_document_mut("meta")
        .unwrap()
        .insert("city", "Bergen");
    expected.get_array_mut("items").unwrap()[1]
        .as_document_mut()
        .unwrap()
        .insert("qty", 9);
    expected.insert("__v", 2);
    let after = records
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after, expected);
    // And it loads again as what was saved.
    let again = records.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(*again, *record);
    t.finish().await;
}

const HUGE: usize = 100_000;

fn huge_items(bad_at: Option<usize>) -> Vec<Bson> {
    (0..HUGE)
        .map(|i| {
            let qty = if Some(i) == bad_at {
                -1
            } else {
                (i % 200) as i32
            };
            Bson::Document(doc! { "label": format!("item {i}"), "qty": qty })
        })
        .collect()
}

/// A 100,000-element array loads, one change saves as one positional
/// `$set`, and one bad element among them is named by its index.
#[tokio::test]
async fn a_huge_array_loads_saves_one_change_and_errors_cleanly() {
    let t = TestDb::new().await;
    let records = Record::model(&t.db);
    let id = ObjectId::new();
    let mut stored = good(id);
    stored.insert("items", huge_items(None));
    insert(&records, stored).await;

    let mut record = records.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(record.items.len(), HUGE);
    assert_eq!(record.items[HUGE - 1].label, format!("item {}", HUGE - 1));
    record.items[HUGE - 1].qty = 201;
    let (filter, update) = record.changes().expect("one change");
    assert_eq!(filter, doc! { "_id": id, "__v": 0 });
    assert_eq!(
        update,
        doc! { "$set": { format!("items.{}.qty", HUGE - 1): 201 }, "$inc": { "__v": 1 } }
    );
    record.save().await.unwrap();
    let again = records.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(again.items.len(), HUGE);
    assert_eq!(again.items[HUGE - 1].qty, 201);
    assert_eq!(again.version(), Some(1));

    let bad = ObjectId::new();
    let mut stored = good(bad);
    stored.insert("items", huge_items(Some(HUGE - 2)));
    insert(&records, stored).await;
    let path = format!("items.{}.qty", HUGE - 2);
    let err = records.find_by_id(bad).await.unwrap_err();
    let Error::Deserialize(e) = &err else {
        panic!("expected Error::Deserialize, got {err:?}");
    };
    assert_eq!(
        (e.collection.as_str(), &e.id, e.path.as_str()),
        ("records", &Bson::ObjectId(bad), path.as_str())
    );
    assert_eq!(
        err.to_string(),
        format!(
            "cannot load document \"{}\" from collection \"records\": field \"{path}\": invalid value: integer ?, expected u8",
            bad.to_hex()
        )
    );
    t.finish().await;
}
