use odm::prelude::*;
use serde::{Deserialize, Serialize};

fn takes_str(_: &str) -> Result<(), String> {
    Ok(())
}

#[derive(Serialize, Deserialize, Document)]
#[odm(validate = Self::rules)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(validate = takes_str)]
    name: String,
}

impl User {
    fn rules(&self) -> Result<(), String> {
        Ok(())
    }
}

fn main() {}
