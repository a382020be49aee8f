use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
    element: String,
}

// An enum model's schema version needs its steps too, as a struct's does.
#[derive(Serialize, Deserialize, Document)]
#[odm(collection = "events", schema_version = 1)]
#[serde(tag = "kind")]
enum Event {
    Click(Click),
}

fn main() {}
