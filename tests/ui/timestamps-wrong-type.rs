use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(timestamps(created_at = "born", updated_at = "touched"))]
struct Note {
    #[serde(rename = "_id")]
    id: ObjectId,
    born: odm::bson::DateTime,
    touched: String,
}

fn main() {}
