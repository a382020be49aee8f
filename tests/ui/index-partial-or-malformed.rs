// `or(..)` is accepted (MongoDB 6.0+, checked by sync_indexes); a malformed
// one is a compile error.
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct Ride {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(unique, partial(or()))]
    empty: String,
    #[odm(unique, partial(or(status = "A", or(status = "B"))))]
    nested_or: String,
    #[odm(unique, partial(and(status = "A", kind = 1)))]
    top_level_and: String,
    #[odm(unique, partial(or(and(status = "A", or(kind = 1)), kind = 2)))]
    or_in_and: String,
    #[odm(unique, partial(or(and(), kind = 2)))]
    empty_and: String,
    #[odm(unique, partial(or(nor(status = "A"), kind = 2)))]
    nor_in_or: String,
    #[odm(unique, partial(or(status = "A", missing = 2)))]
    unknown_field: String,
    #[odm(unique, partial(or(and(status = "A", kind(gt = 1)), status(in = ["B", "C"]))))]
    fine: String,
    status: String,
    kind: i32,
}

fn main() {}
