//! One atomic write of one document as a pure value ([`FindModify`]): a
//! `findAndModify` that returns the document as the update left it. Built
//! here for [`Model::claim`](crate::Model::claim) and
//! [`Model::upsert`](crate::Model::upsert): the filter as sent (with the
//! fence's and the pipeline marker's terms), the update with the version
//! bump and the timestamps, the options, and what to do with an answer
//! that is not a document: send again, or read the fence that may have
//! refused it. `model::execute_atomic` runs every one of them the same way.

use mongodb::bson::{Bson, DateTime, Document as BsonDocument};

use super::{fence, upsert_pipeline};
use crate::plan::{timestamps, update_ops};
use crate::schema::Schema;

/// How often an upsert is sent again when the server answers "ok" without a
/// document (never on MongoDB; about 1% of contended upserts on SecantusDB).
pub(crate) const EMPTY_ANSWER_RETRIES: usize = 8;

/// The update a [`FindModify`] sends.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Modification {
    /// An update with operators (`$set`, `$inc`, `$setOnInsert`, ...).
    Operators(BsonDocument),
    /// An update pipeline (an upsert that bumps the version on update and
    /// stores 0 on insert, see [`upsert_pipeline`]).
    Pipeline(Vec<BsonDocument>),
}

/// An answer without a document: nothing matched (or, for an upsert,
/// SecantusDB's "ok" without a value).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OnEmpty {
    /// How often the same command is sent again first.
    pub resend: usize,
    /// Then, on a fenced write: read (inside the session) whether a
    /// document of the caller's filter holds a larger fence, which is
    /// [`Error::Fenced`](crate::Error::Fenced); else the answer is `None`.
    pub read_fence: bool,
}

/// A refusal for a duplicate key.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OnDuplicate {
    /// On a fenced write: first read (outside the session, whose
    /// transaction the failed write aborted) whether a document of the
    /// caller's filter holds a larger fence, which is the error then.
    pub read_fence: bool,
    /// How often the same command is sent again, outside a session only
    /// (inside one, the failed write has aborted the transaction).
    pub resend: usize,
}

/// One `findAndModify` (`findOneAndUpdate`, returning the document after
/// the update), ready to send.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FindModify {
    /// The caller's filter: what a fence read looks in, and what an upsert
    /// that found nothing names.
    pub given: BsonDocument,
    /// The filter sent: `given` with the fence's and the marker's terms.
    pub filter: BsonDocument,
    pub update: Modification,
    /// `upsert: true`: insert a document when nothing matches.
    pub upsert: bool,
    /// Which matching document to take first.
    pub sort: Option<BsonDocument>,
    /// The token of a fenced write: it is sent through the fence's
    /// collection handle (majority write concern).
    pub fence: Option<i64>,
    pub on_empty: OnEmpty,
    pub on_duplicate: OnDuplicate,
}

/// An answer a [`FindModify`] may be sent again after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// "ok" without a document.
    Empty,
    /// A duplicate key.
    DuplicateKey,
}

/// How often a [`FindModify`] has been sent again, per [`Answer`].
#[derive(Debug, Default)]
pub(crate) struct Resent {
    pub empty: usize,
    pub duplicate_key: usize,
}

impl FindModify {
    /// Whether to send the same command again after `answer`, counting it
    /// in `resent`; `in_session` is whether it runs inside a session.
    pub(crate) fn again(&self, answer: Answer, resent: &mut Resent, in_session: bool) -> bool {
        let (count, limit) = match answer {
            Answer::Empty => (&mut resent.empty, self.on_empty.resend),
            Answer::DuplicateKey if in_session => return false,
            Answer::DuplicateKey => (&mut resent.duplicate_key, self.on_duplicate.resend),
        };
        let again = *count < limit;
        *count += usize::from(again);
        again
    }

    /// The fence token to read after `answer` has settled the write
    /// (not sent again), if this write reads one then.
    pub(crate) fn fence_read(&self, answer: Answer) -> Option<i64> {
        let read = match answer {
            Answer::Empty => self.on_empty.read_fence,
            Answer::DuplicateKey => self.on_duplicate.read_fence,
        };
        self.fence.filter(|_| read)
    }
}

/// The claim of one document of `filter` with `update` (see
/// [`Model::claim`](crate::Model::claim)): the update bumps the version
/// (unless it writes the key itself) and stamps `updatedAt`; a fenced
/// claim that matched nothing reads the fence.
pub(crate) fn claim<T: Schema>(
    filter: BsonDocument,
    update: BsonDocument,
    sort: Option<BsonDocument>,
    fence: Option<i64>,
    now: DateTime,
) -> FindModify {
    let mut update = claim_update::<T>(update, now);
    let sent = match fence {
        Some(token) => {
            fence::stamp(&mut update, token);
            fence::filter(filter.clone(), token)
        }
        None => filter.clone(),
    };
    FindModify {
        given: filter,
        filter: sent,
        update: Modification::Operators(update),
        upsert: false,
        sort,
        fence,
        on_empty: OnEmpty {
            resend: 0,
            read_fence: fence.is_some(),
        },
        on_duplicate: OnDuplicate::default(),
    }
}

/// `update` plus the version bump and the `updated_at` stamp.
fn claim_update<T: Schema>(mut update: BsonDocument, now: DateTime) -> BsonDocument {
    timestamps::stamp_update::<T>(&mut update, None, now);
    if let Some(key) = T::__odm_meta().versioning.key {
        if !update_ops::touches(&update, key) {
            update_ops::add(&mut update, "$inc", key, Bson::Int32(1));
        }
    }
    update
}

/// The upsert of `filter` with `$set: set` and `$setOnInsert:
/// set_on_insert` (see [`Model::upsert`](crate::Model::upsert)): on a
/// versioned model the pipeline form, which bumps the version of an
/// updated document and stores 0 in an inserted one (unless the update
/// writes the key itself); the timestamps; sent again after an empty
/// answer (up to [`EMPTY_ANSWER_RETRIES`] times) and once after a
/// duplicate key outside a session; a fenced upsert refused for a
/// duplicate key reads the fence.
pub(crate) fn upsert<T: Schema>(
    filter: BsonDocument,
    set: BsonDocument,
    set_on_insert: BsonDocument,
    fence: Option<i64>,
    now: DateTime,
) -> FindModify {
    let update = upsert_update::<T>(&filter, set, set_on_insert, fence, now);
    let mut sent = match fence {
        Some(token) => fence::filter(filter.clone(), token),
        None => filter.clone(),
    };
    if matches!(update, Modification::Pipeline(_)) {
        sent = upsert_pipeline::filter(sent);
    }
    FindModify {
        given: filter,
        filter: sent,
        update,
        upsert: true,
        sort: None,
        fence,
        on_empty: OnEmpty {
            resend: EMPTY_ANSWER_RETRIES,
            read_fence: false,
        },
        on_duplicate: OnDuplicate {
            read_fence: fence.is_some(),
            resend: 1,
        },
    }
}

/// What an upsert sends: the operator form, or on a versioned model the
/// pipeline form that also bumps the version of an updated document.
fn upsert_update<T: Schema>(
    filter: &BsonDocument,
    set: BsonDocument,
    set_on_insert: BsonDocument,
    fence: Option<i64>,
    now: DateTime,
) -> Modification {
    let mut update = BsonDocument::new();
    if !set.is_empty() {
        update.insert("$set", set);
    }
    if !set_on_insert.is_empty() {
        update.insert("$setOnInsert", set_on_insert);
    }
    timestamps::stamp_update::<T>(&mut update, Some(filter), now);
    if let Some(token) = fence {
        fence::stamp(&mut update, token);
    }
    match T::__odm_meta().versioning.key {
        Some(key) if !update_ops::touches(&update, key) => {
            let part = |op: &str| match update.get(op) {
                Some(Bson::Document(d)) => d.clone(),
                _ => BsonDocument::new(),
            };
            Modification::Pipeline(upsert_pipeline::pipeline(
                &part("$set"),
                &part("$setOnInsert"),
                Some(key),
            ))
        }
        _ => Modification::Operators(update),
    }
}

#[cfg(test)]
#[path = "find_modify_tests.rs"]
mod tests;
