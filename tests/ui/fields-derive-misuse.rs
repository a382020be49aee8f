use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Fields)]
enum Status {
    Active,
}

#[derive(Serialize, Fields)]
struct Tuple(String);

#[derive(Serialize, Fields)]
struct Borrowed<'a> {
    name: &'a str,
}

fn main() {}
