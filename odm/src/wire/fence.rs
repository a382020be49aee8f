//! Fenced writes: a write made under a lease (`lock::Lease`)
//! carries its token, and the document refuses a token smaller than one
//! it already stored.
//!
//! The filter accepts the document only if its stored fence (`__fence`)
//! is absent or not larger than the token, and the update stores the
//! token there. So once a newer holder (larger token) has written, a stale
//! holder's late write matches nothing and changes nothing; odm then reads
//! the fence to report [`Error::Fenced`]. The fence is hidden from the
//! value at load like the version key, so models need no field for it
//! (and `#[serde(deny_unknown_fields)]` still loads).

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{doc, Bson, Document};
use mongodb::options::{CollectionOptions, ReadPreference, SelectionCriteria, WriteConcern};
use mongodb::{ClientSession, Collection};

use crate::error::{from_driver, Error, FencedError, Result};
use crate::plan::update_ops;
use crate::wire::command_log::Command;

pub(crate) use crate::codec::version_key::FENCE;

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

/// `filter`, also requiring the stored fence to be absent or not larger
/// than `token`.
pub(crate) fn filter(mut filter: Document, token: i64) -> Document {
    let term = doc! { "$not": { "$gt": token } };
    if filter.contains_key(FENCE) {
        return doc! { "$and": [filter, { FENCE: term }] };
    }
    filter.insert(FENCE, term);
    filter
}

/// Adds `$set: {__fence: token}` to `update`.
pub(crate) fn stamp(update: &mut Document, token: i64) {
    update_ops::add(update, "$set", FENCE, Bson::Int64(token));
}

/// The filter finding a document of `filter` that refuses `token`.
fn refusing(filter: Document, token: i64) -> Document {
    doc! { "$and": [filter, { FENCE: { "$gt": token } }] }
}

/// A stored fence as a number (an Int32, Int64 or integral double).
fn read(stored: &Document) -> Option<i64> {
    crate::codec::integer(stored.get(FENCE)?)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_accepts_no_fence_or_a_smaller_one() {
        assert_eq!(
            filter(doc! { "_id": 1 }, 5),
            doc! { "_id": 1, "__fence": { "$not": { "$gt": 5_i64 } } }
        );
        // A filter that names the fence itself keeps its own term.
        assert_eq!(
            filter(doc! { "__fence": 3 }, 5),
            doc! { "$and": [{ "__fence": 3 }, { "__fence": { "$not": { "$gt": 5_i64 } } }] }
        );
        assert_eq!(
            refusing(doc! { "_id": 1 }, 5),
            doc! { "$and": [{ "_id": 1 }, { "__fence": { "$gt": 5_i64 } }] }
        );
    }

    #[test]
    fn the_update_stores_the_token() {
        let mut update = doc! { "$set": { "a": 1 }, "$inc": { "__v": 1 } };
        stamp(&mut update, 9);
        assert_eq!(
            update,
            doc! { "$set": { "a": 1, "__fence": 9_i64 }, "$inc": { "__v": 1 } }
        );
        let mut empty = Document::new();
        stamp(&mut empty, 2);
        assert_eq!(empty, doc! { "$set": { "__fence": 2_i64 } });
    }

    #[test]
    fn a_stored_fence_reads_as_a_number() {
        assert_eq!(read(&doc! { "__fence": 4_i64 }), Some(4));
        assert_eq!(read(&doc! { "__fence": 4 }), Some(4));
        assert_eq!(read(&doc! { "__fence": 4.0 }), Some(4));
        assert_eq!(read(&doc! { "x": 4 }), None);
    }
}
