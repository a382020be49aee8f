//! A fenced batch ([`BulkSave::fenced`](super::BulkSave::fenced)): every
//! statement carries the lease's token as `save().fenced()` carries it
//! ([`prepare`](super::prepare)); here, the write concern the batch states
//! and how a statement that matched nothing is told a fence refusal.

use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::options::{Acknowledgment, WriteConcern};
use mongodb::ClientSession;

use crate::error::{Error, FencedError};
use crate::model::Document;
use crate::model::Model;

/// The refusal a fenced statement that matched nothing gets when its
/// document (`target`, as read after the write) holds `stored`, a fence
/// larger than `token`; `None` when it does not (the statement missed for
/// another reason: a stale version, a deleted document).
pub(crate) fn refusal(
    collection: &str,
    target: BsonDocument,
    token: i64,
    stored: Option<i64>,
) -> Option<Error> {
    let stored = stored.filter(|s| *s > token)?;
    Some(Error::Fenced(Box::new(FencedError {
        collection: collection.to_string(),
        filter: target,
        token,
        stored: Some(stored),
    })))
}

/// Whether a fenced batch states `w: majority` itself, as every fenced
/// write does: always, but inside a transaction, where the commit carries
/// the write concern and the server refuses one per operation.
///
/// The driver does not tell whether a session holds a transaction, but
/// before sending anything it refuses an operation that sets its own write
/// concern inside one, and one whose write concern is unacknowledged
/// outside one: an unacknowledged delete of no document asks it, and
/// nothing is sent either way (were it sent, it would delete nothing).
pub(crate) async fn states_concern<T: Document>(
    model: &Model<T>,
    session: Option<&mut ClientSession>,
) -> bool {
    let Some(session) = session else {
        return true;
    };
    let unacknowledged = WriteConcern::builder().w(Acknowledgment::Nodes(0)).build();
    let probe = model
        .raw_collection()
        .delete_one(doc! { "_id": { "$in": [] } })
        .write_concern(unacknowledged)
        .session(session);
    !matches!(probe.await, Err(e) if in_transaction(&e))
}

/// Whether `e` is the driver's refusal of a write concern inside a
/// transaction.
fn in_transaction(e: &mongodb::error::Error) -> bool {
    matches!(
        &*e.kind,
        mongodb::error::ErrorKind::InvalidArgument { message, .. }
            if message.contains("after starting a transaction")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_larger_stored_token_is_a_refusal() {
        let target = doc! { "_id": 1 };
        assert!(refusal("c", target.clone(), 5, None).is_none());
        assert!(refusal("c", target.clone(), 5, Some(5)).is_none());
        assert!(refusal("c", target.clone(), 5, Some(4)).is_none());
        match refusal("c", target.clone(), 5, Some(6)) {
            Some(Error::Fenced(e)) => {
                assert_eq!((e.token, e.stored), (5, Some(6)));
                assert_eq!(e.filter, target);
                assert_eq!(e.collection, "c");
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}
