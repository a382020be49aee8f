use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(min = 1)]
    name: String,
    #[odm(min_len = 1)]
    age: u32,
    #[odm(one_of("A", "B"))]
    level: i64,
    #[odm(required)]
    email: String,
    #[odm(max = 3)]
    flag: bool,
    #[odm(max_len = 2)]
    tags: Option<Vec<String>>,
    #[odm(nested)]
    nick: Option<String>,
}

fn main() {}
