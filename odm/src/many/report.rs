//! What an `update_many` did.

/// The counts the server reported for an
/// [`update_many`](crate::Model::update_many).
///
/// With the version bump (the default) every matched document is modified
/// (its version changed), so `modified == matched`; with
/// [`keep_version`](crate::UpdateMany::keep_version), `modified` counts only
/// the documents the update changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct UpdateReport {
    /// Documents the filter matched.
    pub matched: u64,
    /// Documents the update changed.
    pub modified: u64,
}

impl UpdateReport {
    /// Documents the filter matched.
    pub fn matched(&self) -> u64 {
        self.matched
    }

    /// Documents the update changed.
    pub fn modified(&self) -> u64 {
        self.modified
    }
}
