use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
    element: String,
}

#[derive(Serialize, Deserialize)]
struct View {
    #[serde(rename = "_id")]
    id: ObjectId,
    page: String,
}

// The kind key stored under the schema version key.
#[derive(Serialize, Deserialize, Document)]
#[odm(collection = "events", schema_version = 1, migrate = Self::upgrade)]
#[serde(tag = "__sv")]
enum Event {
    Click(Click),
}

impl Event {
    fn upgrade(_: &mut odm::bson::Document, _: u32) -> Result<(), MigrationError> {
        Ok(())
    }
}

// The same under a schema key of the model's own naming.
#[derive(Serialize, Deserialize, Document)]
#[odm(collection = "visits", schema_version = 1, migrate = Self::upgrade, schema_key = "rev")]
#[serde(tag = "rev")]
enum Visit {
    View(View),
}

impl Visit {
    fn upgrade(_: &mut odm::bson::Document, _: u32) -> Result<(), MigrationError> {
        Ok(())
    }
}

// The kind key stored under the reference counter.
#[derive(Serialize, Deserialize, Document)]
#[odm(collection = "logs")]
#[serde(tag = "__refs")]
enum Log {
    View(View),
}

fn main() {}
