//! The one reading of a driver error: its server code, its labels, and
//! what they mean to odm. Every place that decides on a failed command
//! (the command log's `code`, a transaction's retry, the index sync's
//! missing collection and refusal, the duplicate key, a save left in
//! doubt) asks [`classify`] or the helpers here instead of matching the
//! driver's error shapes itself; [`into_error`] turns the error into
//! odm's [`Error`].

use mongodb::bson::raw::{RawBsonRef, RawDocument};
use mongodb::error::{
    ErrorKind, WriteFailure, RETRYABLE_WRITE_ERROR, TRANSIENT_TRANSACTION_ERROR,
    UNKNOWN_TRANSACTION_COMMIT_RESULT,
};

use super::{duplicate, Error};

/// The server's duplicate-key code.
const DUPLICATE_KEY: i32 = 11000;
/// The duplicate-key code of servers before 2.6, for an update.
const DUPLICATE_KEY_OLD: i32 = 11001;
/// `MaxTimeMSExpired`.
const MAX_TIME_EXPIRED: i32 = 50;
/// `NamespaceNotFound`: e.g. `listIndexes` on a collection that does not
/// exist.
const NAMESPACE_NOT_FOUND: i32 = 26;

/// What a driver error says, read once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Class {
    /// The server's code (see [`code`]), when the server answered.
    pub code: Option<i32>,
    /// A duplicate key in any shape of error (see [`Error::DuplicateKey`]).
    pub duplicate_key: bool,
    /// Labelled `TransientTransactionError` (a write conflict, a primary
    /// step-down inside a transaction): the whole transaction may run again.
    pub transient_transaction: bool,
    /// Labelled `UnknownTransactionCommitResult`: the commit may have
    /// landed.
    pub commit_unknown: bool,
    /// The server gave up on its time limit (`MaxTimeMSExpired`): sending
    /// the same command again cannot help.
    pub time_limit: bool,
    /// The collection does not exist (`NamespaceNotFound`).
    pub namespace_not_found: bool,
    /// The write may have been applied anyway (see [`may_have_applied`]).
    pub may_have_applied: bool,
}

/// Reads `e` once into a [`Class`].
pub(crate) fn classify(e: &mongodb::error::Error) -> Class {
    let code = code(e);
    Class {
        code,
        duplicate_key: duplicate_key(e).is_some(),
        transient_transaction: e.contains_label(TRANSIENT_TRANSACTION_ERROR),
        commit_unknown: e.contains_label(UNKNOWN_TRANSACTION_COMMIT_RESULT),
        time_limit: code == Some(MAX_TIME_EXPIRED),
        namespace_not_found: command_refusal(e).map(|(code, _)| code) == Some(NAMESPACE_NOT_FOUND),
        may_have_applied: may_have_applied(e),
    }
}

/// Whether `code` is the server's duplicate-key code.
fn is_duplicate(code: i32) -> bool {
    code == DUPLICATE_KEY || code == DUPLICATE_KEY_OLD
}

/// A duplicate key found in a driver error (see [`duplicate_key`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DuplicateKey<'a> {
    /// The server's message (`E11000 duplicate key error collection: ...`).
    pub message: &'a str,
    /// The part of the server's reply about the duplicate (its
    /// `writeErrors` entry, else the whole reply, as for `findAndModify`),
    /// when the driver kept the reply: where `keyPattern` and `keyValue`
    /// are.
    pub reply: Option<&'a RawDocument>,
}

/// The duplicate key `e` (or an error behind it) holds: a refused write, the
/// first refused insert of `insert_many`, the first refused write of a
/// client bulk write or a refused command with the duplicate-key code.
pub(crate) fn duplicate_key(e: &mongodb::error::Error) -> Option<DuplicateKey<'_>> {
    let message = match &*e.kind {
        ErrorKind::Write(WriteFailure::WriteError(w)) if is_duplicate(w.code) => Some(&w.message),
        ErrorKind::Command(c) if is_duplicate(c.code) => Some(&c.message),
        ErrorKind::InsertMany(m) => m
            .write_errors
            .iter()
            .flatten()
            .find(|w| is_duplicate(w.code))
            .map(|w| &w.message),
        ErrorKind::BulkWrite(b) => b
            .write_errors
            .iter()
            .filter(|(_, w)| is_duplicate(w.code))
            .min_by_key(|(at, _)| **at)
            .map(|(_, w)| &w.message),
        _ => None,
    };
    match message {
        Some(message) => Some(DuplicateKey {
            message: message.as_str(),
            reply: e
                .server_response()
                .map(|reply| duplicate_write_error(reply).unwrap_or(reply)),
        }),
        None => std::error::Error::source(e)?
            .downcast_ref::<mongodb::error::Error>()
            .and_then(duplicate_key),
    }
}

/// The first `writeErrors` entry of `reply` with the duplicate-key code.
fn duplicate_write_error(reply: &RawDocument) -> Option<&RawDocument> {
    let errors = reply.get_array("writeErrors").ok()?;
    errors
        .into_iter()
        .filter_map(|e| e.ok()?.as_document())
        .find(|e| raw_code(e).is_some_and(is_duplicate))
}

/// The `code` of a reply's entry, in whichever number type it came.
fn raw_code(doc: &RawDocument) -> Option<i32> {
    match doc.get("code").ok()?? {
        RawBsonRef::Int32(n) => Some(n),
        RawBsonRef::Int64(n) => i32::try_from(n).ok(),
        RawBsonRef::Double(n) => Some(n as i32),
        _ => None,
    }
}

/// The server's code of `e`: a refused command's, a refused write's, an
/// unsatisfied write concern's, or the first refused insert's of an
/// `insert_many`; `None` when the server gave none (a lost connection).
pub(crate) fn code(e: &mongodb::error::Error) -> Option<i32> {
    match &*e.kind {
        ErrorKind::Command(c) => Some(c.code),
        ErrorKind::Write(WriteFailure::WriteError(w)) => Some(w.code),
        ErrorKind::Write(WriteFailure::WriteConcernError(w)) => Some(w.code),
        ErrorKind::InsertMany(m) => m.write_errors.as_ref()?.first().map(|w| w.code),
        _ => None,
    }
}

/// The code and message of a command the server refused (a command error,
/// not a write's).
pub(crate) fn command_refusal(e: &mongodb::error::Error) -> Option<(i32, &str)> {
    match &*e.kind {
        ErrorKind::Command(c) => Some((c.code, c.message.as_str())),
        _ => None,
    }
}

/// Whether a write that failed with `e` may have been applied anyway. Only
/// a refusal by the server says it was not: a write error (a duplicate key,
/// a failed validation) or a command error not labelled retryable (with
/// that label, an earlier attempt of a retried write may have landed). A
/// lost connection, a timeout or a write concern error (the write was
/// applied; its replication is unknown) leave the outcome in doubt.
pub(crate) fn may_have_applied(e: &mongodb::error::Error) -> bool {
    match &*e.kind {
        ErrorKind::Write(WriteFailure::WriteError(_)) => false,
        ErrorKind::Command(_) => e.contains_label(RETRYABLE_WRITE_ERROR),
        _ => true,
    }
}

/// Whether `e` is the driver's refusal to start a transaction on a session
/// that already holds one (nothing was sent): how odm tells that a
/// session it was given is inside a transaction, since the driver does not
/// say it otherwise.
pub(crate) fn transaction_in_progress(e: &mongodb::error::Error) -> bool {
    matches!(
        &*e.kind,
        ErrorKind::Transaction { message, .. } if message.contains("already in progress")
    )
}

/// `e` as odm's [`Error`]: [`Error::DuplicateKey`] for a duplicate key in
/// any shape (naming its index, key and `collection`, or the collection
/// the server's message names), else [`Error::Driver`].
pub(crate) fn into_error(e: mongodb::error::Error, collection: Option<&str>) -> Error {
    match duplicate::from_driver(e, collection) {
        Ok(d) => Error::DuplicateKey(Box::new(d)),
        Err(e) => Error::Driver(e),
    }
}

#[cfg(test)]
#[path = "classify_tests.rs"]
mod tests;
