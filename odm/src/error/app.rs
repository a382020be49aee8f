//! [`Error::Application`]: an error of the application's own, returned
//! from a callback odm runs (a transaction, `update_with_retry`, a hook),
//! so a business rule need not pretend to be a validation failure.

use std::fmt;

use super::Error;

/// The application's own error, carried through odm unchanged.
///
/// Its text is the application's error's text: the application decides
/// what it shows.
///
/// ```
/// use odm::Error;
///
/// #[derive(Debug)]
/// struct InsufficientFunds { missing: i64 }
/// impl std::fmt::Display for InsufficientFunds {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         f.write_str("insufficient funds")
///     }
/// }
/// impl std::error::Error for InsufficientFunds {}
///
/// let e = Error::application(InsufficientFunds { missing: 5 });
/// assert_eq!(e.to_string(), "insufficient funds");
/// let rule = e.application_error::<InsufficientFunds>().expect("ours");
/// assert_eq!(rule.missing, 5);
/// assert!(!e.is_transient());
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct ApplicationError {
    reason: Box<dyn std::error::Error + Send + Sync>,
}

impl ApplicationError {
    /// The application's error.
    pub fn reason(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.reason
    }

    /// The application's error, if it is an `E`.
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.reason.downcast_ref::<E>()
    }

    /// The application's error, owned.
    pub fn into_reason(self) -> Box<dyn std::error::Error + Send + Sync> {
        self.reason
    }
}

impl fmt::Display for ApplicationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.reason.fmt(f)
    }
}

/// The reason is the text already, so `source()` goes on from the
/// reason's own source.
impl std::error::Error for ApplicationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.reason.source()
    }
}

impl Error {
    /// An error of the application's own (any error type, or a `String` /
    /// `&str`), to return from a callback odm runs:
    /// `return Err(Error::application(InsufficientFunds))`. A transaction
    /// aborts on it and returns it as it is; it is never retried.
    pub fn application(reason: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
        Error::Application(Box::new(ApplicationError {
            reason: reason.into(),
        }))
    }

    /// The application's error, if this is an [`Error::Application`]
    /// holding an `E`.
    pub fn application_error<E: std::error::Error + 'static>(&self) -> Option<&E> {
        match self {
            Error::Application(e) => e.downcast_ref::<E>(),
            _ => None,
        }
    }
}
