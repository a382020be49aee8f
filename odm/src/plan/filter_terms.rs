//! What a caller's filter fixes: the equality terms the server copies
//! into a document an upsert inserts, and routes an upsert on a sharded
//! collection by.

use mongodb::bson::{Bson, Document as BsonDocument};

/// Whether `filter` fixes the top-level `field` by equality (`{field: v}`
/// with `v` not an operator document, or `{field: {$eq: v}}`, also inside
/// a top-level `$and`). The server gives a document an upsert inserts that
/// value, and on a sharded collection routes the upsert by its shard key
/// fields fixed so (it refuses an upsert that does not fix them all). A
/// timestamp stamped over such a field would leave the inserted document
/// not matching the filter it was inserted for (the next upsert of the
/// same filter would insert another), nor the shard key it was routed by.
pub(crate) fn fixed_by(filter: &BsonDocument, field: &str) -> bool {
    let equal = |value: &Bson| match value {
        Bson::Document(d) => match d.keys().next() {
            Some(op) if op.starts_with('$') => d.len() == 1 && d.contains_key("$eq"),
            _ => true,
        },
        _ => true,
    };
    if filter.get(field).is_some_and(equal) {
        return true;
    }
    match filter.get("$and") {
        Some(Bson::Array(terms)) => terms.iter().any(|term| match term {
            Bson::Document(term) => fixed_by(term, field),
            _ => false,
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use mongodb::bson::doc;

    use super::fixed_by;

    #[test]
    fn a_filter_fixes_a_field_by_equality_only() {
        let at = mongodb::bson::DateTime::from_millis(5);
        for fixed in [
            doc! { "createdAt": at },
            doc! { "createdAt": { "$eq": at } },
            doc! { "createdAt": { "day": 1 } },
            doc! { "$and": [{ "tenant": 1 }, { "createdAt": at }] },
        ] {
            assert!(fixed_by(&fixed, "createdAt"), "{fixed}");
        }
        for open in [
            doc! { "email": "a" },
            doc! { "createdAt": { "$gt": at } },
            doc! { "createdAt": { "$eq": at, "$ne": at } },
            doc! { "createdAt.day": 1 },
            doc! { "$or": [{ "createdAt": at }] },
            doc! { "$and": [{ "createdAt": { "$lt": at } }] },
        ] {
            assert!(!fixed_by(&open, "createdAt"), "{open}");
        }
    }
}
