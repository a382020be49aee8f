use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    logins: i32,
    status: String,
    tags: Vec<String>,
}

fn main() {
    let f = User::fields();
    // `inc` on a string.
    let _ = f.status().inc(1);
    // `set` of the wrong type.
    let _ = f.logins().set("many");
    // An update writes the field's own type: an element is not an array.
    let _ = f.tags().set("one");
    // Only an `Option` field can be unset.
    let _ = f.status().unset();
    // `push` of the wrong element type.
    let _ = f.tags().push(3);
}
