use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Fields)]
struct Audit {
    created_by: String,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(audit, cache)))]
struct A {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(flatten)]
    audit: Audit,
    #[serde(skip)]
    cache: String,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(value.created_by)))]
struct B<T> {
    #[serde(rename = "_id")]
    id: ObjectId,
    value: T,
}

fn main() {}
