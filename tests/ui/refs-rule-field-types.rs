// A rule's field must hold refs, `clear` an `Option<Ref<T>>` and `pull` a
// `Vec<Ref<T>>`.
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(referenced_by(Post))]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(reference(on_delete = clear))]
    author: Ref<User>,
    #[odm(reference(on_delete = pull))]
    editor: Option<Ref<User>>,
    #[odm(reference(on_delete = refuse))]
    name: String,
}

fn main() {}
