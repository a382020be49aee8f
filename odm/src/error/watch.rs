//! The error of a change stream refused before anything was sent
//! (re-exported by `odm::watch`).

use std::fmt;

/// A change stream could not be opened as asked; nothing was sent.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WatchError {
    /// The namespace (`db.collection`) of the stream asked for.
    pub namespace: String,
    /// What was wrong.
    pub kind: WatchErrorKind,
}

impl WatchError {
    /// The namespace (`db.collection`) of the stream asked for.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// What was wrong.
    pub fn kind(&self) -> &WatchErrorKind {
        &self.kind
    }
}

/// Why a change stream was refused.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum WatchErrorKind {
    /// The resume token came from another collection's stream.
    ForeignToken {
        /// The namespace the token came from.
        token: String,
    },
    /// The filter cannot be applied to the events' documents.
    Filter {
        /// Which operator, and what to do instead.
        message: String,
    },
}

impl fmt::Display for WatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            WatchErrorKind::ForeignToken { token } => write!(
                f,
                "cannot resume a change stream on \"{}\" with a resume token from \"{token}\": \
                 a token resumes only the stream of the collection it came from",
                self.namespace
            ),
            WatchErrorKind::Filter { message } => write!(
                f,
                "cannot watch \"{}\" with this filter: {message}",
                self.namespace
            ),
        }
    }
}

impl std::error::Error for WatchError {}
