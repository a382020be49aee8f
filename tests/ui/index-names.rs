use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(index(keys(email = 1), name = "email_1"))]
#[odm(index(keys(a = 1, a = -1)))]
#[odm(index(keys(a = 1), name = "_id_"))]
struct Item {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(unique)]
    email: String,
    a: i64,
}

fn main() {}
