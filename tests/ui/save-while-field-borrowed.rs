use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

async fn save_holding_name(mut user: Doc<User>) -> odm::Result<()> {
    let name = &user.name;
    user.save().await?;
    println!("saved {name}");
    Ok(())
}

fn main() {
    let _ = save_holding_name;
}
