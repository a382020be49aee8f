use odm::prelude::*;

#[derive(Document)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
