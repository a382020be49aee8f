use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(status, avatr)))]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    status: String,
    avatar: Option<String>,
}

fn main() {}
