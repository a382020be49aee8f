//! Stored documents that could not round-trip: the version key is never
//! shown to the value (so `deny_unknown_fields` and a `flatten` catch-all
//! work), a version that is not a non-negative integer is refused by every
//! loader, and an enum document with extra keys is refused.

use crate::common;

use std::collections::BTreeMap;

use common::stored;
use odm::bson::{Bson, Document as BsonDocument, RawDocumentBuf};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "strict_items")]
#[serde(deny_unknown_fields)]
struct StrictItem {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "open_items")]
struct OpenItem {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    tags: Vec<String>,
    #[serde(flatten)]
    rest: BTreeMap<String, Bson>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "items")]
struct Item {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Shape {
    Circle(f64),
    Rect { w: i32, h: i32 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "drawings")]
struct Drawing {
    #[serde(rename = "_id")]
    id: ObjectId,
    shape: Shape,
}

/// The value as it would be stored, without the version key.
fn in_memory<T: Serialize>(value: &T) -> BsonDocument {
    common::bson::to_document(value).unwrap()
}

/// The stored document without its version key, and that key's values
/// (all of them, in case it were written twice).
async fn stored_split<T: odm::Document>(
    model: &Model<T>,
    id: ObjectId,
) -> (BsonDocument, Vec<Bson>) {
    let raw: RawDocumentBuf = model
        .collection()
        .clone_with_type::<RawDocumentBuf>()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .expect("stored");
    let mut rest = BsonDocument::new();
    let mut versions = Vec::new();
    for element in &raw {
        let (key, value) = element.unwrap();
        // A `&str` with bson 2 (where this is a no-op), a `&CStr` with bson 3.
        #[allow(clippy::useless_asref)]
        let key: &str = key.as_ref();
        let value = Bson::try_from(value).unwrap();
        if key == "__v" {
            versions.push(value);
        } else {
            rest.insert(key, value);
        }
    }
    (rest, versions)
}

#[tokio::test]
async fn deny_unknown_fields_loads_saves_and_still_refuses_unknown_fields() {
    let t = TestDb::new().await;
    let items = StrictItem::model(&t.db);
    let value = StrictItem {
        id: ObjectId::new(),
        name: "a".into(),
        tags: vec!["x".into()],
    };
    items.create(value.clone()).await.unwrap();
    let mut doc = items.find_by_id(value.id).await.unwrap().expect("loads");
    assert_eq!(*doc, value);
    assert_eq!(doc.version(), Some(0));
    doc.name = "b".into();
    doc.tags.push("y".into());
    doc.save().await.unwrap();
    let (rest, versions) = stored_split(&items, value.id).await;
    assert_eq!(rest, in_memory(&*doc));
    assert_eq!(versions, [Bson::Int32(1)]);
    assert_eq!(doc.version(), Some(1));
    doc.reload().await.unwrap();
    assert_eq!(doc.tags, ["x", "y"]);

    let id = ObjectId::new();
    items
        .collection()
        .insert_one(doc! { "_id": id, "name": "c", "tags": [], "color": "red", "__v": 0 })
        .await
        .unwrap();
    let err = items.find_by_id(id).await.unwrap_err();
    let Error::Deserialize(e) = &err else {
        panic!("expected Deserialize, got {err:?}");
    };
    assert_eq!(e.path, "color");
    assert_eq!(e.id, Bson::ObjectId(id));
    assert_eq!(
        err.to_string(),
        format!(
            "cannot load document \"{}\" from collection \"strict_items\": field \"color\": \
             unknown field `color`, expected one of `_id`, `name`, `tags`",
            id.to_hex()
        )
    );
    t.finish().await;
}

#[tokio::test]
async fn a_flatten_catch_all_never_holds_the_version_key() {
    let t = TestDb::new().await;
    let items = OpenItem::model(&t.db);
    let id = ObjectId::new();
    items
        .collection()
        .insert_one(doc! { "_id": id, "name": "a", "tags": ["x"], "color": "red", "__v": 0 })
        .await
        .unwrap();
    let mut doc = items.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(
        doc.rest,
        BTreeMap::from([("color".to_string(), Bson::from("red"))])
    );
    doc.name = "b".into();
    doc.tags.push("y".into());
    doc.rest.insert("size".into(), Bson::Int32(3));
    doc.save().await.unwrap();
    let (rest, versions) = stored_split(&items, id).await;
    assert_eq!(rest, in_memory(&*doc));
    assert_eq!(versions, [Bson::Int32(1)], "one version key, bumped once");
    assert_eq!(doc.version(), Some(1));
    // Saved again, and read back: still no version in the map.
    doc.tags.push("z".into());
    doc.save().await.unwrap();
    let again = items.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(again.version(), Some(2));
    assert!(!again.rest.contains_key("__v"));
    assert_eq!(*again, *doc);
    assert_eq!(stored_split(&items, id).await.1, [Bson::Int32(2)]);
    // A new document with a catch-all inserts its version once.
    let mut fresh = items.new_doc(OpenItem {
        id: ObjectId::new(),
        name: "n".into(),
        tags: vec![],
        rest: BTreeMap::from([("k".to_string(), Bson::Int32(1))]),
    });
    fresh.save().await.unwrap();
    let (rest, versions) = stored_split(&items, fresh.id).await;
    assert_eq!(rest, in_memory(&*fresh));
    assert_eq!(versions, [Bson::Int32(0)]);
    t.finish().await;
}

#[tokio::test]
async fn an_unknown_stored_field_survives_a_save_without_a_catch_all() {
    let t = TestDb::new().await;
    let items = Item::model(&t.db);
    let id = ObjectId::new();
    items
        .collection()
        .insert_one(
            doc! { "_id": id, "legacy": { "a": [1, 2] }, "name": "a", "tags": [], "__v": 0 },
        )
        .await
        .unwrap();
    let mut doc = items.find_by_id(id).await.unwrap().unwrap();
    doc.name = "b".into();
    doc.tags.push("t".into());
    doc.save().await.unwrap();
    let stored = stored(&items, id).await;
    assert_eq!(
        stored,
        doc! { "_id": id, "legacy": { "a": [1, 2] }, "name": "b", "tags": ["t"], "__v": 1 }
    );
    t.finish().await;
}

const EXPECTED: &str = "expected a non-negative integer (Int32, Int64, or an integral double)";

/// Asserts `result` is the refusal of document `id`'s version, `found`.
fn assert_refused<T: std::fmt::Debug>(result: odm::Result<T>, id: ObjectId, found: &str) {
    let err = result.unwrap_err();
    let Error::Deserialize(e) = &err else {
        panic!("expected Deserialize, got {err:?}");
    };
    assert_eq!(e.collection, "items");
    assert_eq!(e.id, Bson::ObjectId(id));
    assert_eq!(e.path, "__v");
    assert_eq!(
        e.message,
        format!("the version key holds {found}; {EXPECTED}")
    );
    assert_eq!(
        err.to_string(),
        format!(
            "cannot load document \"{}\" from collection \"items\": field \"__v\": the version key holds {found}; {EXPECTED}",
            id.to_hex()
        )
    );
}

async fn insert_with_version(items: &Model<Item>, version: Bson) -> ObjectId {
    let id = ObjectId::new();
    items
        .collection()
        .insert_one(doc! { "_id": id, "name": "a", "tags": [], "__v": version })
        .await
        .unwrap();
    id
}

#[tokio::test]
async fn a_version_that_is_no_non_negative_integer_is_refused_by_every_loader() {
    let t = TestDb::new().await;
    let items = Item::model(&t.db);
    let cases = [
        (Bson::from("3"), "the string \"3\""),
        (Bson::Double(2.5), "the double 2.5"),
        (Bson::Int32(-1), "the negative Int32 -1"),
        (Bson::Int64(-7), "the negative Int64 -7"),
        (Bson::Double(-2.0), "the double -2.0"),
        (Bson::Null, "null"),
        (Bson::Boolean(true), "the boolean true"),
        (
            Bson::Document(doc! { "n": 1 }),
            "a value of type EmbeddedDocument",
        ),
    ];
    for (version, found) in cases {
        let id = insert_with_version(&items, version).await;
        assert_refused(items.find_by_id(id).await, id, found);
        assert_refused(items.find_one(doc! { "_id": id }).await, id, found);
        assert_refused(items.find(doc! { "_id": id }).await, id, found);
        let raw = items
            .collection()
            .clone_with_type::<RawDocumentBuf>()
            .find_one(doc! { "_id": id })
            .await
            .unwrap()
            .unwrap();
        assert_refused(items.hydrate(&raw), id, found);
        // upsert bumps only a well-formed version: a malformed one is left
        // for the loader to refuse.
        assert_refused(
            items
                .upsert(doc! { "_id": id })
                .set(doc! { "name": "u" })
                .await,
            id,
            found,
        );
        items
            .collection()
            .delete_one(doc! { "_id": id })
            .await
            .unwrap();
    }
    t.finish().await;
}

#[tokio::test]
async fn reload_and_claim_refuse_a_bad_version_too() {
    let t = TestDb::new().await;
    let items = Item::model(&t.db);
    let id = insert_with_version(&items, Bson::Int32(0)).await;
    let mut doc = items.find_by_id(id).await.unwrap().unwrap();
    items
        .collection()
        .update_one(doc! { "_id": id }, doc! { "$set": { "__v": "x" } })
        .await
        .unwrap();
    assert_refused(doc.reload().await, id, "the string \"x\"");
    // A claim increments the version on the server: 2.5 becomes 3.5.
    let id = insert_with_version(&items, Bson::Double(2.5)).await;
    assert_refused(
        items
            .claim(doc! { "_id": id }, doc! { "$set": { "name": "c" } })
            .await,
        id,
        "the double 3.5",
    );
    t.finish().await;
}

#[tokio::test]
async fn integral_versions_of_any_numeric_type_load_and_save() {
    let t = TestDb::new().await;
    let items = Item::model(&t.db);
    for (version, loaded, stored_after) in [
        (Bson::Int32(4), Some(4), Bson::Int32(5)),
        (Bson::Int64(9), Some(9), Bson::Int64(10)),
        (Bson::Double(3.0), Some(3), Bson::Double(4.0)),
        (Bson::Double(-0.0), Some(0), Bson::Double(1.0)),
    ] {
        let id = insert_with_version(&items, version).await;
        let mut doc = items.find_by_id(id).await.unwrap().unwrap();
        assert_eq!(doc.version(), loaded);
        doc.tags.push("t".into());
        doc.save().await.unwrap();
        assert_eq!(doc.version(), loaded.map(|v| v + 1));
        let (rest, versions) = stored_split(&items, id).await;
        assert_eq!(rest, in_memory(&*doc));
        assert_eq!(versions, [stored_after]);
    }
    // No version at all: `None`, and the first bump stores 1.
    let id = ObjectId::new();
    items
        .collection()
        .insert_one(doc! { "_id": id, "name": "a", "tags": [] })
        .await
        .unwrap();
    let mut doc = items.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(doc.version(), None);
    doc.tags.push("t".into());
    doc.save().await.unwrap();
    assert_eq!(doc.version(), Some(1));
    assert_eq!(stored_split(&items, id).await.1, [Bson::Int32(1)]);
    t.finish().await;
}

#[tokio::test]
async fn an_enum_document_with_two_keys_is_refused() {
    let t = TestDb::new().await;
    let drawings = Drawing::model(&t.db);
    let id = ObjectId::new();
    drawings
        .collection()
        .insert_one(doc! {
            "_id": id,
            "shape": { "Circle": 2.5, "Rect": { "w": 1, "h": 2 } },
            "__v": 0,
        })
        .await
        .unwrap();
    let err = drawings.find_by_id(id).await.unwrap_err();
    let Error::Deserialize(e) = &err else {
        panic!("expected Deserialize, got {err:?}");
    };
    assert_eq!(e.path, "shape");
    assert_eq!(e.id, Bson::ObjectId(id));
    assert!(e.message.contains("extra key \"Rect\""), "{err}");
    // One key loads, and round-trips.
    let id = ObjectId::new();
    drawings
        .collection()
        .insert_one(doc! { "_id": id, "shape": { "Rect": { "w": 1, "h": 2 } }, "__v": 0 })
        .await
        .unwrap();
    let mut doc = drawings.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(doc.shape, Shape::Rect { w: 1, h: 2 });
    doc.shape = Shape::Circle(1.5);
    doc.save().await.unwrap();
    // `$unset shape.Rect` removes a document: that bumps the version.
    assert_eq!(
        stored(&drawings, id).await,
        doc! { "_id": id, "shape": { "Circle": 1.5 }, "__v": 1 }
    );
    t.finish().await;
}
