use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
#[odm(hooks = true)]
struct Account {
    #[serde(rename = "_id")]
    id: ObjectId,
}

fn main() {}
