use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(collection = "accounts", hooks)]
struct Account {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
}

fn main() {}
