//! The server's and the driver's error labels, read from any odm error.

use mongodb::error::{RETRYABLE_WRITE_ERROR, TRANSIENT_TRANSACTION_ERROR};

use super::Error;

impl Error {
    /// The error labels of the driver's error behind this one (such as
    /// `TransientTransactionError`, `RetryableWriteError`,
    /// `UnknownTransactionCommitResult`), sorted; empty when there is none
    /// (an error odm found itself, or the application's).
    pub fn labels(&self) -> Vec<&str> {
        let mut labels: Vec<&str> = self
            .driver()
            .map(|e| e.labels().iter().map(String::as_str).collect())
            .unwrap_or_default();
        labels.sort_unstable();
        labels
    }

    /// Whether the driver's error behind this one carries `label`.
    pub fn has_label(&self, label: &str) -> bool {
        self.driver().is_some_and(|e| e.contains_label(label))
    }

    /// Whether running the same operation again may succeed: the error is
    /// labelled `TransientTransactionError` (run the whole transaction
    /// again; [`transaction`](crate::transaction) does) or
    /// `RetryableWriteError` (the server or the connection failed before
    /// the write was known to apply). A stale copy ([`Error::Version`]),
    /// a duplicate key or a validation failure is not transient: the same
    /// operation would fail the same way.
    pub fn is_transient(&self) -> bool {
        self.has_label(TRANSIENT_TRANSACTION_ERROR) || self.has_label(RETRYABLE_WRITE_ERROR)
    }
}
