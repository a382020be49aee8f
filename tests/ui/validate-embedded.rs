use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Validate)]
#[odm(collection = "comments", optimistic_concurrency)]
struct Comment {
    #[odm(min_len = 1, skip_versioning)]
    text: String,
}

#[derive(Serialize, Deserialize, Validate)]
enum Kind {
    A,
}

#[derive(Serialize, Deserialize, Validate)]
struct Tuple(String);

fn main() {}
