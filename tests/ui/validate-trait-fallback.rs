use odm::prelude::*;
use serde::{Deserialize, Serialize};

type Name = String;
type Flag = bool;

#[derive(Serialize, Deserialize)]
struct Plain {
    x: i32,
}

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(min = 1)]
    name: Name,
    #[odm(required)]
    flag: Flag,
    #[odm(nested)]
    plain: Vec<Plain>,
}

fn main() {}
