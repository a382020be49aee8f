use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    email: String,
}

/// A projection: fewer fields, no `Document` impl.
#[derive(Serialize, Deserialize, Fields)]
struct UserName {
    name: String,
}

async fn rename(users: Model<User>) -> odm::Result<()> {
    let mut names = users.find(doc! {}).projection::<UserName>().await?;
    names[0].name = "renamed".into();
    // A projection is a plain value: nothing to save.
    names[0].save().await?;
    // Nor can it get a model of its own.
    let _ = Model::<UserName>::new(&users.database());
    Ok(())
}

fn main() {
    let _ = rename;
}
