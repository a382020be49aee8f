//! Fenced writes: a write made under a lease (`lock::Lease`)
//! carries its token, and the document refuses a token smaller than one
//! it already stored. The filter and update terms are the request's
//! (`plan::request::fence`); here are the collection handle a fenced write
//! goes through and the read that reports a refusal.
//!
//! The filter accepts the document only if its stored fence (`__fence`)
//! is absent or not larger than the token, and the update stores the
//! token there. So once a newer holder (larger token) has written, a stale
//! holder's late write matches nothing and changes nothing; odm then reads
//! the fence to report [`Error::Fenced`]. The fence is hidden from the
//! value at load like the version key, so models need no field for it
//! (and `#[serde(deny_unknown_fields)]` still loads).

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{doc, Document};
use mongodb::options::{CollectionOptions, ReadPreference, SelectionCriteria, WriteConcern};
use mongodb::{ClientSession, Collection};

use crate::codec::version_key::FENCE;
use crate::error::{from_driver, Error, FencedError, Result};
use crate::plan::request::fence::{read, refusing};
use crate::wire::command_log::Command;

/// The write concern of every lease operation and fenced write: a
/// majority of the replica set, so an acknowledged grant or fenced write
/// is not rolled back when the primary fails over (a grant acknowledged
/// by the old primary alone could be lost, and the same token granted
/// again).
pub(crate) fn majority() -> WriteConcern {
    WriteConcern::majority()
}

/// The read preference of every read a lease or a fence makes: the
/// primary, which holds every acknowledged grant and fence.
pub(crate) fn primary() -> SelectionCriteria {
    SelectionCriteria::ReadPreference(ReadPreference::Primary)
}

/// The options of the leases' collection: [`majority`] and [`primary`].
pub(crate) fn options() -> CollectionOptions {
    CollectionOptions::builder()
        .write_concern(majority())
        .selection_criteria(primary())
        .build()
}

/// `collection` (any document type), with [`options`]: fenced writes
/// and the reads of a fence go through it. Options of a collection, unlike
/// options of one operation, give way inside a transaction (the commit
/// carries the write concern there, and a transaction reads from the
/// primary), so one handle serves both.
pub(crate) fn collection<T: Send + Sync>(collection: &Collection<T>) -> Collection<RawDocumentBuf> {
    let ns = collection.namespace();
    collection
        .client()
        .database(&ns.db)
        .collection_with_options(&ns.coll, options())
}

/// After a fenced write matched nothing: [`Error::Fenced`] when a document
/// of `filter` holds a larger fence than `token`, else `None` (the write
/// failed for another reason).
pub(crate) async fn refusal(
    collection: &Collection<RawDocumentBuf>,
    filter: Document,
    token: i64,
    session: Option<&mut ClientSession>,
) -> Result<Option<Error>> {
    let docs = self::collection(collection).clone_with_type::<Document>();
    let refusing = refusing(filter.clone(), token);
    let log = Command::new(collection.name(), "find").filter(&refusing);
    let action = docs.find_one(refusing).projection(doc! { FENCE: 1 });
    let found = log
        .send(crate::wire::session::send(action, session))
        .await
        .map_err(|e| from_driver(e, collection.name()))?;
    Ok(found.map(|stored| {
        Error::Fenced(Box::new(FencedError {
            collection: collection.name().to_string(),
            filter,
            token,
            stored: read(&stored),
        }))
    }))
}
