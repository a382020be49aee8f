use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency = true)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
}

fn main() {}
