// A rule on a reference to `User` must be known to `User`'s deletes:
// `User` lists `Post` in `referenced_by(..)`, or it does not compile.
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(reference(on_delete = refuse))]
    author: Ref<User>,
}

fn main() {}
