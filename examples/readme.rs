use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "users", optimistic_concurrency)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(unique)]
    email: String,
    status: String,
}

#[tokio::main]
async fn main() -> odm::Result<()> {
    let uri = std::env::var("MONGODB_URI").unwrap_or("mongodb://localhost:27017".into());
    let client = mongodb::Client::with_uri_str(&uri).await?;
    let db = client.database("odm_readme");
    db.drop().await?; // start empty, so the program can run again

    let users = User::model(&db);
    users.sync_indexes().await?; // once at startup: the unique index on email

    // Create: validated, then inserted with version 0.
    let new_user = User {
        id: ObjectId::new(),
        email: "ann@example.com".into(),
        status: "NEW".into(),
    };
    let mut ann = users.create(new_user.clone()).await?;

    // A second instance of the service loads the same user.
    let mut stale = users.find_by_id(ann.id).await?.expect("just created");

    // Change and save: one updateOne with only what changed,
    // {_id, __v: 0} -> {$set: {status: "ACTIVE"}, $inc: {__v: 1}}.
    ann.status = "ACTIVE".into();
    ann.save().await?;
    println!("saved: {:?}, version {:?}", ann.status, ann.version());

    // The second instance saves its stale copy: refused, nothing overwritten.
    stale.status = "BLOCKED".into();
    match stale.save().await {
        Err(Error::Version(e)) => println!("stale copy refused: {e}"),
        other => panic!("expected a version conflict, got {other:?}"),
    }

    // A second account with the same email: refused by the unique index.
    let twin = User {
        id: ObjectId::new(),
        ..new_user
    };
    match users.create(twin).await {
        Err(Error::DuplicateKey(e)) => println!("duplicate refused: {e}"),
        other => panic!("expected a duplicate key, got {other:?}"),
    }

    let stored = users.find_by_id(ann.id).await?.expect("stored");
    assert_eq!(stored.status, "ACTIVE");
    client.shutdown().await;
    Ok(())
}
