use odm::prelude::*;
use serde::{Deserialize, Serialize};

// Combinations MongoDB refuses, each an error at the option that makes it wrong.
#[derive(Serialize, Deserialize, Document)]
#[odm(
    index(keys(a = 1, b = -1), expire_after = 60),
    index(keys(c = "hashed"), unique),
    index(keys(title = "text", body = "text"), weights(title = 10, a = 2)),
    index(keys(a = 1), default_language = "french"),
    index(wildcard, unique, name = "any"),
    index(keys(loc = "2dsphere"), expire_after = 60),
    index(keys(body = "text"), name = "second_text"),
)]
struct Item {
    #[serde(rename = "_id")]
    id: i64,
    a: String,
    b: String,
    c: String,
    title: String,
    body: String,
    loc: String,
    #[odm(expire_after = 3600)]
    at: i64,
}

fn main() {}
