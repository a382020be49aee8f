//! Empty `bson::Document`s without seeding a hasher for each.
//!
//! `Document::new()` seeds a fresh `ahash` state (a random source and key
//! mixing), which is a measurable part of building a small save's
//! `(filter, update)`: four documents per save. A clone of an empty
//! document copies its hasher and allocates nothing, so the documents a
//! thread builds share one seed. That costs no collision resistance that
//! matters: the seed is still random per process, and a `Document` is an
//! `IndexMap`, whose iteration follows insertion order, not hash order, so
//! copying one document into another never degrades as it can for hash
//! maps that share a hasher.

use mongodb::bson::{Bson, Document};

thread_local! {
    static EMPTY: Document = Document::new();
}

/// A new, empty document.
pub(crate) fn new_document() -> Document {
    EMPTY.with(Document::clone)
}

/// The document in `slot`, an empty one left there: `std::mem::take`
/// without the fresh hasher `Document::default()` would seed.
pub(crate) fn take(slot: &mut Document) -> Document {
    std::mem::replace(slot, new_document())
}

/// `{key: value}`.
pub(crate) fn document_of(key: impl Into<String>, value: impl Into<Bson>) -> Document {
    let mut document = new_document();
    document.insert(key, value);
    document
}

#[cfg(test)]
mod tests {
    use mongodb::bson::doc;

    use super::*;

    #[test]
    fn take_moves_the_document_out_and_leaves_an_empty_one() {
        let mut slot = doc! { "a": 1, "b": { "c": 2 } };
        assert_eq!(take(&mut slot), doc! { "a": 1, "b": { "c": 2 } });
        assert!(slot.is_empty());
        slot.insert("d", 3);
        assert_eq!(slot, doc! { "d": 3 });
    }

    #[test]
    fn documents_start_empty_and_stay_apart() {
        let mut a = new_document();
        let b = new_document();
        a.insert("x", 1);
        assert_eq!(a, doc! { "x": 1 });
        assert!(b.is_empty());
        assert!(new_document().is_empty());
        assert_eq!(document_of("k", "v"), doc! { "k": "v" });
    }
}
