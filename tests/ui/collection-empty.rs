use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(collection = "")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
}

fn main() {}
