use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Fields)]
struct Comment {
    text: String,
}

#[derive(Serialize, Deserialize, Fields)]
struct Audit {
    created_by: String,
}

#[derive(Serialize, Deserialize, Document)]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
    comments: Vec<Comment>,
    tags: Vec<String>,
    #[serde(skip)]
    cache: String,
    #[serde(flatten)]
    audit: Audit,
}

fn main() {
    // A misspelled field.
    let _ = doc! { Post::fields().emial(): "a@b.c" };
    // A misspelled field of a nested type.
    let _ = Post::fields().comments().txt();
    // A type without paths has no fields to go into.
    let _ = Post::fields().tags().len();
    // A field serde does not store has no path.
    let _ = Post::fields().cache();
    // A flattened field has no path of its own, only its fields.
    let _ = Post::fields().audit().as_str();
}
