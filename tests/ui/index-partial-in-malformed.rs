// `in` is accepted (MongoDB 6.0+, checked by sync_indexes); a malformed one
// is a compile error.
use odm::prelude::*;
use serde::{Deserialize, Serialize};

const ACTIVE: &str = "ACTIVE";

#[derive(Serialize, Deserialize, Document)]
struct Ride {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(unique, partial(status(in = "ACTIVE")))]
    not_a_list: String,
    #[odm(unique, partial(status(in = [])))]
    empty: String,
    #[odm(unique, partial(status(in = [ACTIVE, "PENDING"])))]
    not_a_literal: String,
    #[odm(unique, partial(status(in = ["ACTIVE"]), kind(in = [1, 2.5, true])))]
    fine: String,
    status: String,
    kind: i32,
}

fn main() {}
