use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(versioning = false, version_key = "rev")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
}

fn main() {}
