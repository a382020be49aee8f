use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(index(keys(a = 2)))]
#[odm(index(unique))]
#[odm(index(keys(a = 1), uniq))]
#[odm(index)]
struct Item {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(index = 1)]
    a: i64,
    #[odm(unique, partial(a(type = "strnig")))]
    b: String,
    #[odm(unique, partial(a = some_const))]
    c: String,
    #[odm(unique, partial(a(exists = 1)))]
    d: String,
    #[odm(unique, unique)]
    e: String,
}

fn main() {}
