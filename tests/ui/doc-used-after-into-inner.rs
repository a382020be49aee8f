use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

async fn rename(mut user: Doc<User>) -> odm::Result<User> {
    let value = user.into_inner();
    user.name = "Ada".into();
    user.save().await?;
    Ok(value)
}

fn main() {
    let _ = rename;
}
