// A `Ref<T>` holds T's `_id`: built from a value of another id type, or
// compared with a ref to another model, it does not compile.
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
struct Item {
    #[serde(rename = "_id")]
    id: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
    author: Ref<User>,
}

fn main() {
    let _ = Ref::<User>::new("65a1b2c3d4e5f60718293a4b");
    let _ = Ref::<Item>::new(ObjectId::new());
    let item: Ref<Item> = Ref::new(7);
    let _ = Post::fields().author().eq(&item);
}
