use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Serialize, Deserialize, Document)]
#[serde(untagged)]
enum Event {
    Click(Click),
}

fn main() {}
