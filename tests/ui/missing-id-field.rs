use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    id: ObjectId,
    email: String,
}

fn main() {}
