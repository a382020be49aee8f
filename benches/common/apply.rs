//! The benches' check that a row measures a correct save: the `(filter,
//! update)` of `doc.changes()`, applied to the stored document the way the
//! server applies it (the workspace's one update interpreter,
//! `odm_testing::update`), must give back the in-memory value. The filter
//! is checked for its `_id` and version only.

use std::fmt::Debug;

use odm::bson::raw::RawDocumentBuf;
use odm::bson::Document as BsonDocument;
use odm_testing::update::{apply, mongo_eq};
use serde::de::DeserializeOwned;

/// Asserts that `changes` (a `doc.changes()`) is a correct save of
/// `current` over `stored`: its filter names the stored `_id` (and its
/// version `__v`, if any), and its update applied to `stored` loads as
/// `current`. Returns the update, for the row's own checks.
pub fn check_save<T>(
    row: &str,
    stored: &RawDocumentBuf,
    changes: Option<(BsonDocument, BsonDocument)>,
    current: &T,
) -> BsonDocument
where
    T: DeserializeOwned + PartialEq + Debug,
{
    let stored = BsonDocument::try_from(stored.as_ref()).expect("stored BSON decodes");
    let (filter, update) = changes.unwrap_or_else(|| panic!("{row}: changes() saw no change"));
    assert_eq!(filter.get("_id"), stored.get("_id"), "{row}: filter _id");
    if let Some(v) = filter.get("__v") {
        let loaded = stored.get("__v").expect("a stored version");
        assert!(mongo_eq(v, loaded), "{row}: filter version {v} != {loaded}");
    }
    let after = apply(&stored, &update).unwrap_or_else(|e| panic!("{row}: {e}"));
    let loaded: T = odm::bson::from_document(after).expect("the updated document loads");
    // Not assert_eq!: a failing 50,000-element value is no use printed.
    assert!(
        loaded == *current,
        "{row}: the update applied to the stored document is not the in-memory value"
    );
    update
}
