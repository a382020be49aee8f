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
    fixed_value(filter, field).is_some()
}

/// The value `filter` fixes the top-level `field` to by equality (see
/// [`fixed_by`]): the first such term, at the top level, then in a
/// top-level `$and`.
pub(crate) fn fixed_value<'f>(filter: &'f BsonDocument, field: &str) -> Option<&'f Bson> {
    let equal = |value: &'f Bson| match value {
        Bson::Document(d) => match d.keys().next() {
            Some(op) if op.starts_with('$') => match (d.len(), d.get("$eq")) {
                (1, Some(value)) => Some(value),
                _ => None,
            },
            _ => Some(value),
        },
        _ => Some(value),
    };
    if let Some(value) = filter.get(field).and_then(equal) {
        return Some(value);
    }
    match filter.get("$and") {
        Some(Bson::Array(terms)) => terms.iter().find_map(|term| match term {
            Bson::Document(term) => fixed_value(term, field),
            _ => None,
        }),
        _ => None,
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

    #[test]
    fn the_fixed_value_is_the_equality_term() {
        use super::fixed_value;
        use mongodb::bson::Bson;
        assert_eq!(fixed_value(&doc! { "t": 7 }, "t"), Some(&Bson::Int32(7)));
        assert_eq!(
            fixed_value(&doc! { "t": { "$eq": "x" } }, "t"),
            Some(&Bson::String("x".into()))
        );
        assert_eq!(
            fixed_value(&doc! { "$and": [{ "a": 1 }, { "t": 2 }] }, "t"),
            Some(&Bson::Int32(2))
        );
        assert_eq!(fixed_value(&doc! { "t": { "$gt": 2 } }, "t"), None);
    }
}
