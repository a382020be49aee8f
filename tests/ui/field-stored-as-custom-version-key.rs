use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(version_key = "rev")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    rev: i64,
}

fn main() {}
