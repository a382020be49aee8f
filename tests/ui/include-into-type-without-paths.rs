use odm::prelude::*;
use serde::{Deserialize, Serialize};

// No `#[derive(Fields)]`: its fields have no typed paths.
#[derive(Serialize, Deserialize)]
struct Profile {
    first_name: String,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(exclude(profile.first_name)))]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    profile: Profile,
}

// A field after a map key is a field of the map's values.
#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(prefs."dark".enabled)))]
struct Settings {
    #[serde(rename = "_id")]
    id: ObjectId,
    prefs: std::collections::HashMap<String, bool>,
}

#[derive(Serialize, Deserialize, Fields)]
struct Name {
    first: String,
}

// A key after a struct: the field after it is not a map value's.
#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(name."first".x)))]
struct Person {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: Name,
}

fn main() {}
