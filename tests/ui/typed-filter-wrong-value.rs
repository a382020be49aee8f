use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    age: u32,
    status: String,
    nickname: Option<String>,
    tags: Vec<String>,
}

fn main() {
    let f = User::fields();
    // A string compared with a number.
    let _ = f.age().gte("18");
    // A number compared with a string.
    let _ = f.status().eq(3);
    // An array element of the wrong type.
    let _ = f.tags().contains(1);
    // `$in` values of the wrong type.
    let _ = f.status().is_in([1, 2]);
    // An array operator on a field that is not an array.
    let _ = f.status().size(2);
}
