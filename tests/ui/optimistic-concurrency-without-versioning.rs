use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(versioning = false, optimistic_concurrency)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
}

fn main() {}
