use odm::prelude::*;
use serde::{Deserialize, Serialize};

// Malformed kind options, each reported at the mistake.
#[derive(Serialize, Deserialize, Document)]
#[odm(
    index(keys(a = "geo")),
    index(keys(b = 1), expire_after = -5),
    index(keys(c = 1), collation(strength = 2)),
    index(keys(d = 1), collation(locale = "en", strength = 9)),
    index(keys(e = "text"), weights(e = 0)),
    index(wildcard, keys(a = 1)),
)]
struct Item {
    #[serde(rename = "_id")]
    id: i64,
    a: String,
    b: String,
    c: String,
    d: String,
    e: String,
}

fn main() {}
