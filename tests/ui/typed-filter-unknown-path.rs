use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    status: String,
}

fn main() {
    let f = User::fields();
    // A misspelled field in a filter, a sort and an update.
    let _ = f.stauts().eq("ACTIVE");
    let _ = f.created_at().desc();
    let _ = f.satus().set("EXPIRED");
}
