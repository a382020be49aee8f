use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(min = 1.5)]
    a: i32,
    #[odm(max = 300)]
    b: u8,
    #[odm(min = -1)]
    c: Option<u32>,
    #[odm(min = 10, max = 5)]
    d: f64,
    #[odm(min_len = 4, max_len = 2)]
    e: String,
    #[odm(min = 1, min = 2)]
    f: i32,
    #[odm(one_of())]
    g: String,
    #[odm(one_of("A", 1))]
    h: String,
    #[odm(min = "1")]
    i: i32,
    #[odm(min_len = -1)]
    j: String,
    #[odm(required = true)]
    k: Option<i32>,
}

fn main() {}
