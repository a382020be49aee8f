use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

async fn save_twice(mut user: Doc<User>) -> odm::Result<()> {
    let first = user.save();
    let second = user.save();
    first.await?;
    second.await
}

fn main() {
    let _ = save_twice;
}
