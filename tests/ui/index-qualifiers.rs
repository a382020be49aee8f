use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(index(keys(a = 1), sparse, partial(b(gt = 5))))]
struct Item {
    #[serde(rename = "_id")]
    #[odm(unique)]
    id: i64,
    #[odm(sparse)]
    a: String,
    #[odm(partial(b(exists = true)))]
    b: i64,
    #[odm(unique, index)]
    c: String,
    #[odm(unique, sparse, partial(b(lt = 3)))]
    d: String,
    #[serde(skip)]
    #[odm(index)]
    e: String,
}

fn main() {}
