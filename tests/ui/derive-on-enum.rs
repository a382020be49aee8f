use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Document)]
enum Status {
    Active,
    Banned,
}

fn main() {}
