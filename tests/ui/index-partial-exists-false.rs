use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct Ride {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(unique, partial(status(exists = false)))]
    vehicle_id: String,
    status: String,
}

fn main() {}
