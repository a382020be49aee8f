//! The terms a fenced write adds to its request: the filter accepts the
//! document only if its stored fence (`__fence`) is absent or not larger
//! than the token, and the update stores the token there. Pure; the reads
//! of a fence and the collection handle it is written through are
//! `wire::fence`'s.

use mongodb::bson::{doc, Bson, Document};

use crate::codec::version_key::FENCE;
use crate::plan::update_ops;

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
pub(crate) fn refusing(filter: Document, token: i64) -> Document {
    doc! { "$and": [filter, { FENCE: { "$gt": token } }] }
}

/// A stored fence as a number (an Int32, Int64 or integral double).
pub(crate) fn read(stored: &Document) -> Option<i64> {
    crate::codec::integer(stored.get(FENCE)?)
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
