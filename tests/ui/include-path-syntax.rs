use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(comments.0.text)))]
struct A {
    #[serde(rename = "_id")]
    id: ObjectId,
    comments: Vec<String>,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(prefs."a.b")))]
struct B {
    #[serde(rename = "_id")]
    id: ObjectId,
    prefs: std::collections::HashMap<String, String>,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(exclude(prefs."$set", prefs."")))]
struct C {
    #[serde(rename = "_id")]
    id: ObjectId,
    prefs: std::collections::HashMap<String, String>,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(prefs.)))]
struct D {
    #[serde(rename = "_id")]
    id: ObjectId,
    prefs: std::collections::HashMap<String, String>,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(prefs.theme = 1)))]
struct E {
    #[serde(rename = "_id")]
    id: ObjectId,
    prefs: std::collections::HashMap<String, String>,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(include(prefs.*.*.on)))]
struct F {
    #[serde(rename = "_id")]
    id: ObjectId,
    prefs: std::collections::HashMap<String, String>,
}

fn main() {}
