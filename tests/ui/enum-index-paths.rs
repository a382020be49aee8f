use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Fields)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
    element: String,
}

#[derive(Serialize, Deserialize)]
struct Purchase {
    #[serde(rename = "_id")]
    id: ObjectId,
    cents: i64,
}

// A newtype variant's index names its type's fields through their typed
// paths: a misspelled field, or a type without `Fields`, does not compile.
#[derive(Serialize, Deserialize, Document)]
#[serde(tag = "kind")]
enum Event {
    #[odm(index(keys(elemnt = 1)))]
    Click(Click),
    #[odm(index(keys(cents = 1), unique))]
    Purchase(Purchase),
}

fn main() {}
