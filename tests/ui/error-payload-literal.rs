// Every error payload is #[non_exhaustive]: outside odm it is read through
// its accessors and fields, never built by a struct literal, so odm can add
// a field without breaking a user.
use odm::{NotFoundError, ValidationError};

fn main() {
    let _ = NotFoundError {
        collection: "users".into(),
        filter: odm::bson::doc! {},
    };
    // ValidationError is opaque: built by `new`, read by `path()`/`message()`.
    let _ = ValidationError {
        path: "age".into(),
        message: "too young".into(),
    };
}
