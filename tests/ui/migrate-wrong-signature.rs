use odm::prelude::*;
use serde::{Deserialize, Serialize};

// One step takes the stored document and the version it upgrades from.
#[derive(Serialize, Deserialize, Document)]
#[odm(collection = "users", schema_version = 2, migrate = Self::upgrade)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
}

impl User {
    fn upgrade(_: &mut odm::bson::Document) -> Result<(), MigrationError> {
        Ok(())
    }
}

// A string is not a path.
#[derive(Serialize, Deserialize, Document)]
#[odm(collection = "posts", schema_version = 1, migrate = "Self::upgrade")]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
}

fn main() {}
