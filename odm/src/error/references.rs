//! The payloads of the referential rules' errors (see
//! [`refs`](crate::refs)): a delete refused because documents still refer
//! to the target, and a write refused because the document it refers to
//! does not exist.

use std::fmt;

use mongodb::bson::Bson;

use super::id_text;

/// A delete refused by an `on_delete = refuse` rule: documents of another
/// (or the same) model still refer to the document. Nothing was deleted:
/// the whole delete, cascades included, ran in one transaction that was
/// aborted.
///
/// `cannot delete "<id>" from collection "users": 3 documents of "posts"
/// refer to it by "author" (one is "<id>")`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ReferencedError {
    /// The collection of the document that was to be deleted.
    pub collection: String,
    /// The `_id` of a document that was to be deleted and is referred to.
    pub id: Bson,
    /// The collection of the referring documents.
    pub referrers: String,
    /// The field (BSON path) of the referring documents that holds the
    /// reference.
    pub path: String,
    /// How many referring documents there are (for a delete of many
    /// documents: referring to any of them under this rule).
    pub count: u64,
    /// The `_id` of one referring document.
    pub referrer: Bson,
}

impl ReferencedError {
    /// The collection of the document that was to be deleted.
    pub fn collection(&self) -> &str {
        &self.collection
    }
    /// The `_id` of the document that is referred to.
    pub fn id(&self) -> &Bson {
        &self.id
    }
    /// The collection of the referring documents.
    pub fn referrers(&self) -> &str {
        &self.referrers
    }
    /// The field of the referring documents holding the reference.
    pub fn path(&self) -> &str {
        &self.path
    }
    /// How many documents refer to it.
    pub fn count(&self) -> u64 {
        self.count
    }
    /// The `_id` of one referring document.
    pub fn referrer(&self) -> &Bson {
        &self.referrer
    }
}

impl fmt::Display for ReferencedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let documents = if self.count == 1 {
            "document"
        } else {
            "documents"
        };
        write!(
            f,
            "cannot delete \"{}\" from collection \"{}\": {} {documents} of \"{}\" refer to it by \"{}\" (one is \"{}\"); nothing was deleted",
            id_text(&self.id),
            self.collection,
            self.count,
            self.referrers,
            self.path,
            id_text(&self.referrer),
        )
    }
}

impl std::error::Error for ReferencedError {}

/// A write refused because a reference it stores, under a referential
/// rule, points at a document that does not exist (never did, or was
/// deleted before the write could commit). Nothing was written.
///
/// `cannot write to collection "posts": "author" refers to "<id>" in
/// "users", which does not exist; nothing was written`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DanglingError {
    /// The collection written to.
    pub collection: String,
    /// The field (BSON path) holding the reference.
    pub path: String,
    /// The collection the reference points into.
    pub target: String,
    /// The `_id` the reference holds, which no document has.
    pub id: Bson,
}

impl DanglingError {
    /// The collection written to.
    pub fn collection(&self) -> &str {
        &self.collection
    }
    /// The field holding the reference.
    pub fn path(&self) -> &str {
        &self.path
    }
    /// The collection the reference points into.
    pub fn target(&self) -> &str {
        &self.target
    }
    /// The `_id` no document has.
    pub fn id(&self) -> &Bson {
        &self.id
    }
}

impl fmt::Display for DanglingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot write to collection \"{}\": \"{}\" refers to \"{}\" in \"{}\", which does not exist; nothing was written",
            self.collection,
            self.path,
            id_text(&self.id),
            self.target,
        )
    }
}

impl std::error::Error for DanglingError {}
