use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
}

// Every refused variant form of an enum model, reported in one compile.
#[derive(Serialize, Deserialize, Document)]
#[serde(tag = "kind")]
enum Event {
    Click(Click),
    Visit {
        #[serde(rename = "_id")]
        id: ObjectId,
    },
    // No `_id` field.
    Signup { email: String },
    // No document at all.
    Ping,
    Pair(ObjectId, String),
    // A second stored name.
    #[serde(alias = "visit2")]
    Visit2 {
        #[serde(rename = "_id")]
        id: ObjectId,
    },
    // Two kinds under one name.
    #[serde(rename = "Visit")]
    Revisit {
        #[serde(rename = "_id")]
        id: ObjectId,
    },
}

fn main() {}
