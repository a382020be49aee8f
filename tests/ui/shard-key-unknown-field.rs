use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(shard_key(tenant, regoin, tenant))]
struct Order {
    #[serde(rename = "_id")]
    id: ObjectId,
    tenant: i32,
    region: String,
    #[serde(skip)]
    cache: Option<String>,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(shard_key(cache), shard_key())]
struct Skipped {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(skip)]
    cache: Option<String>,
}

fn main() {}
