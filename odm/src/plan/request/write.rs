//! One write of one document as a pure value ([`Request`]): what is sent,
//! the reads that tell why it matched nothing, the error it then is, and
//! what the `Doc` commits when it lands. Built here, in one place, for an
//! insert, an update (or the check of a save with nothing to write) and a
//! delete; `model::execute` runs every one of them the same way.

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{Bson, Document as BsonDocument};

use super::{fence, may_be_stale, no_match, not_found, only_guarded, Plan};
use crate::codec;
use crate::codec::version_key::FENCE;
use crate::error::{Error, Result};
use crate::schema::Schema;

/// What a [`Request`] sends.
pub(crate) enum Send {
    /// `insert` of the stored form (the value, version 0 and the fence).
    Insert(RawDocumentBuf),
    /// `updateOne(filter, update)`, judged on the matched count.
    Update {
        filter: BsonDocument,
        update: BsonDocument,
    },
    /// Nothing to write: a `find` of `filter` (`{_id: 1}` only) checks
    /// that the document (at this version) still exists, as Mongoose does.
    Check(BsonDocument),
    /// `deleteOne(filter)`, judged on the deleted count.
    Delete(BsonDocument),
}

impl Send {
    /// The filter the write matched nothing with (empty for an insert).
    fn filter(&self) -> Option<&BsonDocument> {
        match self {
            Send::Insert(_) => None,
            Send::Update { filter, .. } | Send::Check(filter) | Send::Delete(filter) => {
                Some(filter)
            }
        }
    }
}

/// The reads that follow a write that matched nothing, in this order.
#[derive(Default)]
pub(crate) struct FollowUp {
    /// A fenced write: whether the document (`{_id, shard key}`) holds a
    /// fence larger than the token ([`Error::Fenced`] if so).
    pub fence: Option<(BsonDocument, i64)>,
    /// A write that only a guard could have failed: whether the document
    /// (`{_id, shard key}`) still exists, telling a stale copy from a
    /// deleted document ([`Error::NotFound`] if not).
    pub exists: Option<BsonDocument>,
    /// An update of a save: when it matched nothing and
    /// [`may_be_stale`](Request::may_be_stale), read the whole document
    /// instead (one read, which also answers `fence` and `exists`), so the
    /// version error names what the store changed since the load
    /// ([`VersionError::stored_changes`](crate::VersionError::stored_changes)).
    /// Decided only after a miss: a save that lands computes nothing more.
    pub stored: bool,
}

/// What the `Doc` takes on when the write landed. (One per write, moved
/// once: boxing the plan would only add an allocation to every save.)
#[allow(clippy::large_enum_variant)]
pub(crate) enum Commit {
    /// The plan's value is stored under `id`: its snapshot and version
    /// move forward.
    Saved {
        id: Bson,
        plan: Plan,
        inserted: bool,
    },
    /// The document is gone: a later save is refused.
    Deleted,
}

/// One write of one document, ready to send.
pub(crate) struct Request {
    pub send: Send,
    /// The token of a fenced write: it is sent through the fence's
    /// collection handle (majority write concern).
    pub fence: Option<i64>,
    pub follow_up: FollowUp,
    pub commit: Commit,
    /// The version the document was loaded at (named by the version error).
    pub version: Option<i64>,
}

impl Request {
    /// Whether this write, having matched nothing, is refused as stale
    /// when its document still exists (a save that checked the version or
    /// a guard).
    pub(crate) fn may_be_stale(&self) -> bool {
        match &self.commit {
            Commit::Saved {
                plan,
                inserted: false,
                ..
            } => may_be_stale(plan),
            _ => false,
        }
    }

    /// Puts back the filter of an update whose filter went to the driver
    /// (moved, not copied: a save that matches pays no copy), for the
    /// error of a miss: built again from the same `target` (`{_id, shard
    /// key}` of the `Doc`, unchanged until the commit), version, plan and
    /// fence, it is the filter that was sent.
    pub(crate) fn refill_filter<T: Schema>(&mut self, target: BsonDocument) {
        if let (Send::Update { filter, .. }, Commit::Saved { plan, .. }) =
            (&mut self.send, &self.commit)
        {
            *filter = super::filter::<T>(target, self.version, plan);
            if let Some(token) = self.fence {
                *filter = fence::filter(std::mem::take(filter), token);
            }
        }
    }

    /// The error of this write having matched nothing, once its follow-up
    /// reads found no fence refusing it and, when asked, the document still
    /// there (`exists` is `false` when the follow-up found it gone).
    pub(crate) fn missed(&self, collection: &str, exists: bool) -> Error {
        let filter = self.send.filter().cloned().unwrap_or_default();
        match &self.commit {
            Commit::Saved { id, plan, .. } if exists => {
                no_match(collection, id.clone(), self.version, filter, plan)
            }
            _ => not_found(collection, filter),
        }
    }
}

/// What the insert of a new document planned as `plan` stores: the
/// value, version 0 under a version key, the model's schema version under
/// its key, and the fence's token. (`save()` and a batch insert the same.)
pub(crate) fn inserted<T: Schema>(plan: &Plan, fence: Option<i64>) -> RawDocumentBuf {
    let mut stored = plan.current.of_new().clone();
    let meta = T::__odm_meta();
    if let Some(key) = meta.versioning.key {
        crate::bson_release::append(&mut stored, key, 0i32);
    }
    if let Some(schema) = meta.schema {
        match i32::try_from(schema.current) {
            Ok(version) => crate::bson_release::append(&mut stored, schema.key, version),
            Err(_) => {
                crate::bson_release::append(&mut stored, schema.key, i64::from(schema.current))
            }
        }
    }
    if let Some(token) = fence {
        crate::bson_release::append(&mut stored, FENCE, token);
    }
    stored
}

/// The insert of a new document planned as `plan`, with its `_id`: what
/// [`inserted`] stores.
pub(crate) fn insert<T: Schema>(plan: Plan, fence: Option<i64>) -> Result<Request> {
    let stored = inserted::<T>(&plan, fence);
    let id = codec::read_id(plan.current.of_new())?;
    Ok(Request {
        send: Send::Insert(stored),
        fence,
        follow_up: FollowUp::default(),
        commit: Commit::Saved {
            id,
            plan,
            inserted: true,
        },
        version: None,
    })
}

/// The update of the document stored as `target` (`{_id, shard key}`)
/// under `id` and loaded at `version`, planned as `plan`: the filter with the version, guard and
/// fence terms, the update with the version bump and the fence; a
/// [`Send::Check`] when it writes nothing.
pub(crate) fn update<T: Schema>(
    id: Bson,
    target: BsonDocument,
    version: Option<i64>,
    mut plan: Plan,
    fence: Option<i64>,
) -> Request {
    // The target is copied only for the follow-up reads that need it.
    let follow_up = FollowUp {
        fence: fence.map(|token| (target.clone(), token)),
        exists: only_guarded(&plan).then(|| target.clone()),
        stored: true,
    };
    let (mut filter, mut update) = super::request_moving::<T>(target, version, &mut plan);
    if let Some(token) = fence {
        filter = fence::filter(filter, token);
        fence::stamp(&mut update, token);
    }
    let (send, follow_up) = if update.is_empty() {
        // An enum model's kind, or the schema version, in the filter: a
        // miss of a save with nothing to check but those is a stale copy
        // if the document is still there.
        let follow_up = FollowUp {
            fence: None,
            ..follow_up
        };
        (Send::Check(filter), follow_up)
    } else {
        (Send::Update { filter, update }, follow_up)
    };
    Request {
        send,
        fence,
        follow_up,
        commit: Commit::Saved {
            id,
            plan,
            inserted: false,
        },
        version,
    }
}

/// The delete of the document stored as `target` (`{_id, shard key}`).
pub(crate) fn delete(target: BsonDocument) -> Request {
    Request {
        send: Send::Delete(target),
        fence: None,
        follow_up: FollowUp::default(),
        commit: Commit::Deleted,
        version: None,
    }
}

#[cfg(test)]
#[path = "write_tests.rs"]
mod tests;
