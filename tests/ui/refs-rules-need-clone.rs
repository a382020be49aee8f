// A model with referential rules is `Clone`: its writes run in
// transactions that may run again from the value as it was.
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, Document)]
#[odm(referenced_by(Post))]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(referenced_by(User))]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(reference(on_delete = cascade))]
    author: Ref<User>,
}

fn main() {}
