//! A `serialize_with` that counts its calls on this thread: what a save
//! serialized, seen from the outside (`tests/save_unchanged.rs`,
//! `tests/field_mut.rs`).

use std::cell::Cell;

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
