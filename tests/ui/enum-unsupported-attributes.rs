use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
    element: String,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(
    optimistic_concurrency(include(element)),
    shard_key(element),
    index(keys(element = 1))
)]
#[serde(tag = "__v")]
enum Event {
    Click(Click),
    Again(Click),
}

fn main() {}
