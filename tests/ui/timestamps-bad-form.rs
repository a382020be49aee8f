use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(timestamps(created = "born"))]
struct Note {
    #[serde(rename = "_id")]
    id: ObjectId,
}

fn main() {}
