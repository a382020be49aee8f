use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[serde(rename_all = "camel_case")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    email_address: String,
}

fn main() {}
