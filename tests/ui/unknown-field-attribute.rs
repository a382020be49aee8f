use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(skip_version)]
    tags: Vec<String>,
}

fn main() {}
