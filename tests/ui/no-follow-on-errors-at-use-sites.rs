use odm::prelude::*;
use serde::{Deserialize, Serialize};

// The derive fails; every use of `User` as a document below must still
// type-check, so the only error shown is the derive's.
#[derive(Serialize, Deserialize, Document)]
#[odm(colection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

fn users(db: &mongodb::Database) -> Model<User> {
    User::model(db)
}

async fn rename(users: &Model<User>, id: ObjectId) -> odm::Result<()> {
    let mut user = users.find_by_id(id).await?.expect("stored");
    user.name = "Ada".into();
    user.save().await
}

fn name_filter() -> mongodb::bson::Document {
    doc! { User::fields().name(): "Ada" }
}

fn main() {
    let _ = (users, rename, name_filter);
}
