use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(versioning = false)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(skip_versioning)]
    tags: Vec<String>,
}

fn main() {}
