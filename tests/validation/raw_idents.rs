//! Validators on raw identifiers, flattened fields, boxes and embedded
//! documents.

use mongodb::bson::doc;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

use crate::validation::{failures, valid, Account, Comment};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Validate)]
struct Meta {
    #[odm(min_len = 1)]
    label: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "edge")]
struct Edge {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(one_of("a", "b"))]
    r#type: String,
    #[serde(flatten)]
    #[odm(nested)]
    meta: Meta,
    #[odm(nested)]
    boxed: Option<Box<Comment>>,
    #[odm(nested)]
    maybe_many: Option<Vec<Comment>>,
    /// A document type embedded in another: `Document` implements `Validate`.
    #[odm(nested)]
    owner: Option<Account>,
}

pub async fn raw_idents_flatten_boxes_and_embedded_documents() {
    let mut e = Edge {
        id: 1,
        r#type: "c".into(),
        meta: Meta {
            label: String::new(),
        },
        boxed: Some(Box::new(Comment::new(""))),
        maybe_many: Some(vec![Comment::new("ok"), Comment::new("")]),
        owner: Some(Account { age: 1, ..valid(2) }),
    };
    assert_eq!(
        e.validate().unwrap_err().paths(),
        [
            "type",
            "label",
            "boxed.text",
            "maybe_many.1.text",
            "owner.age"
        ]
    );

    // Against the server: the flattened field is stored at the top level.
    let t = TestDb::new().await;
    let edges = Edge::model(&t.db);
    assert_eq!(failures(edges.create(e.clone()).await.map(|_| ())).len(), 5);
    e.r#type = "a".into();
    e.meta.label = "x".into();
    e.boxed = None;
    e.maybe_many = None;
    e.owner = None;
    edges.create(e).await.unwrap();
    let raw = edges
        .collection()
        .find_one(doc! {"_id": 1})
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw.get_str("label").unwrap(), "x");
    t.finish().await;
}
