//! The rule of [`Model::update_with_retry`](crate::Model::update_with_retry)
//! as a pure value: which document it loads, and which failed save is
//! tried again. Each try is a load and a version-checked save (the save's
//! own request, `write::update`); `atomic::retry` runs them.

use mongodb::bson::{doc, Bson, Document as BsonDocument};

use crate::error::Error;

/// The tries of one `update_with_retry`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Retry {
    /// The filter each try loads with: `{_id: id}`.
    pub filter: BsonDocument,
    /// Tries left after the running one.
    left: usize,
}

impl Retry {
    /// Up to `attempts` tries of the document with this `id` (`0` counts
    /// as `1`).
    pub(crate) fn new(id: Bson, attempts: usize) -> Retry {
        Retry {
            filter: doc! { "_id": id },
            left: attempts.max(1) - 1,
        }
    }

    /// Whether a try whose save failed with `e` is followed by another:
    /// only after a version error (another writer got there first), while
    /// tries are left. Counts the try.
    pub(crate) fn again(&mut self, e: &Error) -> bool {
        let again = matches!(e, Error::Version(_)) && self.left > 0;
        self.left -= usize::from(again);
        again
    }

    /// Whether the running try is the last: no version error is tried
    /// again after it.
    pub(crate) fn last(&self) -> bool {
        self.left == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{NotFoundError, VersionError};

    fn version_error() -> Error {
        Error::Version(Box::new(VersionError::new(Bson::Int32(1), 0, Vec::new())))
    }

    #[test]
    fn a_version_error_is_tried_again_until_the_attempts_are_spent() {
        let mut retry = Retry::new(Bson::Int32(1), 3);
        assert_eq!(retry.filter, doc! { "_id": 1 });
        assert!(!retry.last());
        assert!(retry.again(&version_error()));
        assert!(retry.again(&version_error()));
        assert!(retry.last());
        assert!(!retry.again(&version_error()));
        // Zero attempts is one try.
        assert!(!Retry::new(Bson::Int32(1), 0).again(&version_error()));
        assert!(!Retry::new(Bson::Int32(1), 1).again(&version_error()));
    }

    #[test]
    fn any_other_error_ends_at_once() {
        let mut retry = Retry::new(Bson::Int32(1), 5);
        let missing = Error::NotFound(Box::new(NotFoundError {
            collection: "c".into(),
            filter: doc! {},
        }));
        assert!(!retry.again(&missing));
        // and does not spend a try.
        for _ in 0..4 {
            assert!(retry.again(&version_error()));
        }
        assert!(!retry.again(&version_error()));
    }
}
