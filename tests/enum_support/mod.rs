//! The enum model of `enum_models.rs` and `enum_handles.rs`: events of
//! three kinds (two newtype variants, a struct variant) and their helpers.
#![allow(dead_code)] // each test module uses a different subset

use odm::bson::Document as BsonDocument;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "events")]
#[serde(tag = "kind")]
pub enum Event {
    Click(Click),
    Purchase(Purchase),
    Signup {
        #[serde(rename = "_id")]
        id: ObjectId,
        email: String,
        #[serde(default)]
        referrals: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Click {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub element: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Purchase {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub cents: i64,
    #[serde(default)]
    pub tags: Vec<String>,
}

pub fn click(element: &str) -> Click {
    Click {
        id: ObjectId::new(),
        element: element.into(),
        tags: vec![],
    }
}

pub fn purchase(cents: i64) -> Purchase {
    Purchase {
        id: ObjectId::new(),
        cents,
        tags: vec![],
    }
}

pub async fn stored(events: &Model<Event>, id: ObjectId) -> Option<BsonDocument> {
    events
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
}

pub fn id_of(e: &Event) -> ObjectId {
    match e {
        Event::Click(c) => c.id,
        Event::Purchase(p) => p.id,
        Event::Signup { id, .. } => *id,
    }
}
