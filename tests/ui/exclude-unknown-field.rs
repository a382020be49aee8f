use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(exclude(login_count)))]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    status: String,
    logins: u32,
}

fn main() {}
