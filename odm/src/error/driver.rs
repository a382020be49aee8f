//! A MongoDB driver error as an [`Error`] (through the one classifier,
//! [`classify`](super::classify)), used by `?` on a driver call (the
//! `From` impl) and by every operation of odm alike; the text such an
//! error displays; and the driver error kept behind an odm error
//! ([`Cause`]).
//!
//! A duplicate key (server code 11000) is [`Error::DuplicateKey`] whichever
//! shape the driver gave it (a write error, an `insert_many` or client bulk
//! write error, a command error from `findAndModify`, `createIndexes` or a
//! transaction's commit), with the index and key read from it; anything
//! else is [`Error::Driver`]. An operation that knows its collection passes
//! it along ([`from_driver`]); a bare conversion reads it from the server's
//! message.

use std::fmt;

use mongodb::error::{ErrorKind, WriteFailure};

use super::classify::into_error;
use super::Error;

impl From<mongodb::error::Error> for Error {
    /// [`Error::DuplicateKey`] for a duplicate key in any shape of driver
    /// error (naming its index, key and collection as the server reported
    /// them), else [`Error::Driver`]: the same variant odm's own operations
    /// return for the same failure.
    fn from(e: mongodb::error::Error) -> Self {
        into_error(e, None)
    }
}

/// [`Error::from`], for an operation on `collection`.
pub(crate) fn from_driver(e: mongodb::error::Error, collection: &str) -> Error {
    into_error(e, Some(collection))
}

/// A driver error odm raises itself (an answer it cannot read, an outcome
/// it cannot tell), displaying `message`: the driver shows a custom
/// error's text only when it is a `String`.
pub(crate) fn raised(message: impl Into<String>) -> mongodb::error::Error {
    mongodb::error::Error::custom(message.into())
}

/// A driver error as a sentence: what failed and the server's message,
/// without the driver's debug dump of the reply.
pub(crate) fn describe(e: &mongodb::error::Error, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match &*e.kind {
        ErrorKind::Write(WriteFailure::WriteError(w)) => {
            write!(f, "the server refused the write: ")?;
            server_message(f, &w.message, w.code, w.code_name.as_deref())
        }
        ErrorKind::Write(WriteFailure::WriteConcernError(w)) => {
            write!(f, "the write concern was not satisfied: ")?;
            server_message(f, &w.message, w.code, Some(&w.code_name))
        }
        ErrorKind::InsertMany(m) => {
            let refused = m.write_errors.as_deref().unwrap_or_default();
            write!(f, "the server refused {} of the inserts", refused.len())?;
            if let Some(first) = refused.first() {
                write!(f, "; the first, at position {}: ", first.index)?;
                server_message(f, &first.message, first.code, first.code_name.as_deref())?;
            }
            if let Some(w) = &m.write_concern_error {
                f.write_str("; the write concern was not satisfied: ")?;
                server_message(f, &w.message, w.code, Some(&w.code_name))?;
            }
            Ok(())
        }
        ErrorKind::BulkWrite(b) => {
            write!(
                f,
                "the server refused {} of the bulk writes",
                b.write_errors.len()
            )?;
            let first = b.write_errors.iter().min_by_key(|(at, _)| **at);
            if let Some((at, w)) = first {
                write!(f, "; the first, at position {at}: ")?;
                server_message(f, &w.message, w.code, w.code_name.as_deref())?;
            }
            if let Some(w) = b.write_concern_errors.first() {
                f.write_str("; the write concern was not satisfied: ")?;
                server_message(f, &w.message, w.code, Some(&w.code_name))?;
            }
            Ok(())
        }
        ErrorKind::Command(c) => {
            write!(f, "the server refused the command: ")?;
            server_message(f, &c.message, c.code, Some(&c.code_name))
        }
        other => match e.get_custom::<String>() {
            Some(text) => f.write_str(text),
            None => fmt::Display::fmt(other, f),
        },
    }
}

/// `message (code 121, DocumentValidationFailure)`, the values the
/// message quotes (a duplicated key) masked unless values are shown.
fn server_message(
    f: &mut fmt::Formatter<'_>,
    message: &str,
    code: i32,
    name: Option<&str>,
) -> fmt::Result {
    let message = super::values::server_message(message, super::values::values_shown());
    write!(f, "{message} (code {code}")?;
    match name {
        Some(name) if !name.is_empty() => write!(f, ", {name})"),
        _ => f.write_str(")"),
    }
}

/// [`describe`] as a `Display` value.
pub(crate) struct Described<'a>(pub &'a mongodb::error::Error);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        describe(self.0, f)
    }
}

impl Error {
    /// The driver's error behind this one, if any.
    pub(crate) fn driver(&self) -> Option<&mongodb::error::Error> {
        match self {
            Error::Driver(e) => Some(e),
            Error::DuplicateKey(e) => e.cause.get(),
            Error::Index(e) => e.cause.get(),
            _ => None,
        }
    }
}

/// The driver's error behind an odm error, kept for
/// [`source`](std::error::Error::source); it takes no part in `==`.
#[derive(Clone, Default)]
pub(crate) struct Cause(Option<Box<mongodb::error::Error>>);

impl Cause {
    pub(crate) fn new(e: mongodb::error::Error) -> Cause {
        Cause(Some(Box::new(e)))
    }

    pub(crate) fn get(&self) -> Option<&mongodb::error::Error> {
        self.0.as_deref()
    }

    pub(crate) fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl PartialEq for Cause {
    fn eq(&self, _: &Cause) -> bool {
        true
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(e) => write!(f, "Cause({})", Described(e)),
            None => f.write_str("None"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_odm_raises_displays_its_text() {
        let told = "the server's answer does not tell whether this statement was applied";
        let e = raised(told);
        assert_eq!(Described(&e).to_string(), told);
        assert!(Error::Driver(e).to_string().contains(told));
        // The driver's own form of a custom error drops a `&str`'s text.
        let bare = mongodb::error::Error::custom(told);
        assert!(!bare.to_string().contains(told));
    }
}
