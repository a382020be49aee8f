use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
#[serde(transparent)]
struct Tags(Vec<String>);

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(skip_versioning)]
    nickname: String,
    // A newtype stored as an array, but without `impl odm::BsonArray`.
    #[odm(skip_versioning)]
    tags: Tags,
}

fn main() {}
