//! A `serialize_with` that counts its calls on this thread: what a save
//! serialized, seen from the outside (`tests/save_unchanged.rs`,
//! `tests/field_mut.rs`, `tests/doc_push.rs`).

use std::cell::Cell;

use odm::prelude::*;
use serde::{Serialize, Serializer};

thread_local! {
    static WRITTEN: Cell<usize> = const { Cell::new(0) };
}

/// `#[serde(serialize_with = "counted")]`: serializes `value` and counts.
pub fn counted<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    WRITTEN.with(|w| w.set(w.get() + 1));
    value.serialize(s)
}

/// Counted values serialized on this thread since the last call.
pub fn written() -> usize {
    WRITTEN.with(|w| w.replace(0))
}

/// Asserts that the stored document of `doc` is its value as it
/// serializes (the version key aside); the count of [`written`] starts
/// again (the serialization counts too).
pub async fn assert_stored_is<T: odm::Document>(model: &Model<T>, doc: &Doc<T>) {
    let id = doc.id().expect("a stored document's id");
    let mut stored = super::stored(model, id).await;
    stored.remove("__v");
    let value = super::bson::to_document(&**doc).unwrap();
    assert_eq!(stored, value, "stored == in memory");
    written();
}
