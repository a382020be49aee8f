use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(timestamps)]
struct Note {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(rename = "createdAt")]
    created_at: Option<odm::bson::DateTime>,
}

fn main() {}
