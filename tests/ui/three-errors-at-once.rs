use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(colection = "users", optimistic_concurrency(include(stauts)))]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    status: String,
    #[odm(skip_versioning)]
    nickname: String,
}

fn main() {}
