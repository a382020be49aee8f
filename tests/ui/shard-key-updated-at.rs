use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(timestamps, shard_key(tenant, updated_at))]
struct Order {
    #[serde(rename = "_id")]
    id: ObjectId,
    tenant: i32,
    #[serde(rename = "createdAt")]
    created_at: Option<DateTime>,
    #[serde(rename = "updatedAt")]
    updated_at: Option<DateTime>,
}

// Only the stamped field is refused, not the creation time nor a field
// that merely has the default name of the stamped one.
#[derive(Serialize, Deserialize, Document)]
#[odm(timestamps(updated_at = "modified"), shard_key(created, touched, modified))]
struct Renamed {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(rename = "createdAt")]
    created: Option<DateTime>,
    modified: Option<DateTime>,
    #[serde(rename = "updatedAt")]
    touched: Option<DateTime>,
}

fn main() {}
