use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct Ride {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(unique, partial(expr(status = "ACTIVE")))]
    vehicle_id: String,
    status: String,
}

fn main() {}
