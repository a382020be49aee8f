//! Helpers shared by the Mongoose translations (`mongoose_*.rs`): the
//! array sub-document they use, reading the stored document raw, checking
//! an error's variant and text.
#![allow(dead_code)] // each test module uses a different subset

#[allow(unused_imports)] // each test module uses a different subset
pub use crate::common::{element_has, element_is, guarded, in_place, rewriting, with_parents};
use odm::bson::{doc, oid::ObjectId, Document as BsonDoc};
use odm::{Document, Error, Model};
use serde::{Deserialize, Serialize};

/// An array sub-document with its own `_id`, as Mongoose makes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
}

pub fn item(name: &str) -> Item {
    Item {
        id: ObjectId::new(),
        name: name.into(),
    }
}

pub fn items_bson(items: &[Item]) -> Vec<BsonDoc> {
    items
        .iter()
        .map(|i| doc! { "_id": i.id, "name": &i.name })
        .collect()
}

/// The stored document, read raw (no tracking, no deserialization), so the
/// version key and any field the type does not know are visible.
pub async fn stored<T: Document>(model: &Model<T>, id: ObjectId) -> BsonDoc {
    model
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .expect("find_one")
        .expect("the document is stored")
}

/// `r` is `Error::Version` and displays exactly as Mongoose's `VersionError`.
pub fn expect_version(r: odm::Result<()>, id: ObjectId, version: i64, paths: &str) {
    match r {
        Err(Error::Version(e)) => {
            assert_eq!(e.version, version);
            assert_eq!(
                e.to_string(),
                format!(
                    "No matching document found for id \"{}\" version {version} modifiedPaths \"{paths}\"",
                    id.to_hex()
                )
            );
        }
        other => panic!("expected Error::Version, got {other:?}"),
    }
}

/// `r` is `Error::NotFound` for `{_id: id}` in `collection`.
pub fn expect_not_found(r: odm::Result<()>, id: ObjectId, collection: &str) {
    match r {
        Err(Error::NotFound(e)) => assert_eq!(
            e.to_string(),
            format!(
                "No document found for query \"{{ _id: {} }}\" on collection \"{collection}\"",
                odm::bson::Bson::ObjectId(id)
            )
        ),
        other => panic!("expected Error::NotFound, got {other:?}"),
    }
}
