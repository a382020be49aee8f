use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

/// Serde only: no list of fields to ask the server for.
#[derive(Serialize, Deserialize)]
struct UserName {
    name: String,
}

async fn names(users: Model<User>) -> odm::Result<Vec<UserName>> {
    users.find(doc! {}).projection::<UserName>().await
}

fn main() {
    let _ = names;
}
