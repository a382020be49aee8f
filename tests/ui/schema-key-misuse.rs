use odm::prelude::*;
use serde::{Deserialize, Serialize};

// `schema_key` without a schema version, and a key odm already uses.
#[derive(Serialize, Deserialize, Document)]
#[odm(schema_key = "rev")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Serialize, Deserialize, Document)]
#[odm(schema_version = 1, migrate = Self::upgrade, schema_key = "__v")]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
}

impl Post {
    fn upgrade(_: &mut odm::bson::Document, _: u32) -> Result<(), MigrationError> {
        Ok(())
    }
}

// A field stored under the schema key.
#[derive(Serialize, Deserialize, Document)]
#[odm(schema_version = 1, migrate = Self::upgrade)]
struct Note {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(rename = "__sv")]
    revision: i32,
}

impl Note {
    fn upgrade(_: &mut odm::bson::Document, _: u32) -> Result<(), MigrationError> {
        Ok(())
    }
}

fn main() {}
