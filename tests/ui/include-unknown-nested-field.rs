use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Fields)]
#[serde(rename_all = "camelCase")]
struct Profile {
    first_name: String,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(status, profile.frist_name)))]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    status: String,
    profile: Profile,
}

fn main() {}
