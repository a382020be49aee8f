use odm::prelude::*;
use serde::{Deserialize, Serialize};

// A schema version needs its steps, and steps need a version.
#[derive(Serialize, Deserialize, Document)]
#[odm(schema_version = 2)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(migrate = Self::upgrade)]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
}

impl Post {
    fn upgrade(_: &mut odm::bson::Document, _: u32) -> Result<(), MigrationError> {
        Ok(())
    }
}

fn main() {}
