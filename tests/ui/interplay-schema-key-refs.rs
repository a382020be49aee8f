use odm::prelude::*;
use serde::{Deserialize, Serialize};

// The schema version kept in the reference counter's field.
#[derive(Serialize, Deserialize, Document)]
#[odm(schema_version = 1, migrate = Self::upgrade, schema_key = "__refs")]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
}

impl Post {
    fn upgrade(_: &mut odm::bson::Document, _: u32) -> Result<(), MigrationError> {
        Ok(())
    }
}

#[derive(Serialize, Deserialize)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
}

// The same on an enum model.
#[derive(Serialize, Deserialize, Document)]
#[odm(collection = "events", schema_version = 1, migrate = Self::upgrade, schema_key = "__refs")]
#[serde(tag = "kind")]
enum Event {
    Click(Click),
}

impl Event {
    fn upgrade(_: &mut odm::bson::Document, _: u32) -> Result<(), MigrationError> {
        Ok(())
    }
}

fn main() {}
