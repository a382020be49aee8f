use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Fields)]
struct Profile {
    first_name: String,
    last_name: String,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(profile.first_name, profile.last_name, profile.first_name)))]
struct A {
    #[serde(rename = "_id")]
    id: ObjectId,
    profile: Profile,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(exclude(profile.first_name, profile)))]
struct B {
    #[serde(rename = "_id")]
    id: ObjectId,
    profile: Profile,
}

fn main() {}
