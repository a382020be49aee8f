use odm::prelude::*;
use serde::{Deserialize, Serialize};

fn check(_: &String) -> Result<(), String> {
    Ok(())
}

#[derive(Serialize, Deserialize, Document)]
#[odm(validate = "Self::rules")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(validate = "check")]
    a: String,
    #[odm(validate = |v: &String| check(v))]
    b: String,
    #[odm(validate = check(1))]
    c: String,
    #[odm(validate)]
    d: String,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(validate = 1 + 2)]
struct Other {
    #[serde(rename = "_id")]
    id: ObjectId,
}

fn main() {}
