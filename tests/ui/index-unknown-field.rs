use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(index(keys(tenant = 1, slugg = -1), unique))]
#[odm(index(keys(tenant = 1), partial(statsu = "ACTIVE")))]
struct Page {
    #[serde(rename = "_id")]
    id: i64,
    tenant: String,
    slug: String,
    #[odm(unique, partial(activ = true))]
    status: String,
    #[serde(skip)]
    cache: String,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(index(keys(cache = 1)))]
struct Skipped {
    #[serde(rename = "_id")]
    id: i64,
    #[serde(skip)]
    cache: String,
}

fn main() {}
