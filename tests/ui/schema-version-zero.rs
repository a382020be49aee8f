use odm::prelude::*;
use serde::{Deserialize, Serialize};

// Version 0 is a document stored without one; a model starts at 1.
#[derive(Serialize, Deserialize, Document)]
#[odm(schema_version = 0, migrate = Self::upgrade)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
}

impl User {
    fn upgrade(_: &mut odm::bson::Document, _: u32) -> Result<(), MigrationError> {
        Ok(())
    }
}

// Not a whole number from 1.
#[derive(Serialize, Deserialize, Document)]
#[odm(schema_version = -1, migrate = Self::upgrade)]
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
