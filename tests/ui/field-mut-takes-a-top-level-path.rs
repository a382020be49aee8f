use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Fields)]
struct Address {
    city: String,
}

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    address: Address,
}

#[derive(Serialize, Deserialize, Document)]
struct Team {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

fn edit(user: &mut Doc<User>) {
    // A nested path: change it through `address`.
    *user.field_mut(User::fields().address().city()) = "Oslo".into();
    // Another model's path, though a field of the same name and type.
    *user.field_mut(Team::fields().name()) = "Ada".into();
}

fn main() {
    let _ = edit;
}
