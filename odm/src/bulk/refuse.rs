//! What refuses a batch before anything is sent, as pure functions: a
//! `_id` given twice, a `Doc` of another collection.

use std::collections::HashMap;

use mongodb::bson::{doc, Bson};

use crate::error::{BatchError, BatchRefusal};

/// The identity of an `_id` for finding repeats: an `ObjectId`'s bytes
/// (held inline: most `_id`s, and no allocation), or any other value's
/// BSON bytes (an `ObjectId`, a string and a number are never the same
/// key).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    ObjectId([u8; 12]),
    Other(Vec<u8>),
}

/// The [`Key`] of `id`.
pub(crate) fn key(id: &Bson) -> Key {
    match id {
        Bson::ObjectId(oid) => Key::ObjectId(oid.bytes()),
        other => {
            let mut bytes = Vec::new();
            // A document of one `_id` always serializes.
            if let Ok(raw) = mongodb::bson::RawDocumentBuf::try_from(&doc! { "": other }) {
                bytes.extend_from_slice(raw.as_bytes());
            }
            Key::Other(bytes)
        }
    }
}

/// The first refusal of a batch in `collection` (namespace `namespace`),
/// whose entries are, in order, each `Doc`'s `_id` (`None` for a new
/// document odm will give one) and its model's namespace.
pub(crate) fn check<'a>(
    collection: &str,
    namespace: &str,
    entries: impl IntoIterator<Item = (Option<Bson>, &'a str)>,
) -> Result<(), Box<BatchError>> {
    let entries = entries.into_iter();
    let mut seen: HashMap<Key, usize> = HashMap::with_capacity(entries.size_hint().0);
    for (position, (id, theirs)) in entries.enumerate() {
        let refuse = |reason| {
            Box::new(BatchError {
                collection: collection.to_string(),
                position,
                id: id.clone(),
                reason,
            })
        };
        if theirs != namespace {
            return Err(refuse(BatchRefusal::OtherCollection {
                namespace: theirs.to_string(),
            }));
        }
        let Some(given) = &id else { continue };
        if *given == Bson::Null {
            continue;
        }
        if let Some(first) = seen.insert(key(given), position) {
            return Err(refuse(BatchRefusal::Repeated { first }));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use mongodb::bson::oid::ObjectId;

    use super::*;

    #[test]
    fn distinct_ids_of_one_collection_pass() {
        let a = Bson::ObjectId(ObjectId::new());
        let entries = [
            (Some(a), "db.users"),
            (None, "db.users"),
            (None, "db.users"),
            (Some(Bson::Null), "db.users"),
            (Some(Bson::Null), "db.users"),
            (Some(Bson::String("x".into())), "db.users"),
            (Some(Bson::Int32(1)), "db.users"),
        ];
        assert_eq!(check("users", "db.users", entries), Ok(()));
        assert_eq!(check("users", "db.users", []), Ok(()));
    }

    #[test]
    fn a_repeated_id_names_both_positions() {
        let a = Bson::ObjectId(ObjectId::new());
        let entries = [
            (Some(a.clone()), "db.users"),
            (Some(Bson::Int32(7)), "db.users"),
            (Some(a.clone()), "db.users"),
        ];
        let e = check("users", "db.users", entries).unwrap_err();
        assert_eq!(e.position, 2);
        assert_eq!(e.id, Some(a.clone()));
        assert_eq!(e.reason, BatchRefusal::Repeated { first: 0 });
        assert_eq!(
            e.to_string(),
            format!(
                "batch for collection \"users\" refused, nothing was sent: the document at position 2 (id \"{}\") has the same _id as the one at position 0",
                a.as_object_id().unwrap().to_hex()
            )
        );
        let strings = [
            (Some(Bson::String("k".into())), "db.users"),
            (Some(Bson::String("k".into())), "db.users"),
        ];
        assert_eq!(
            check("users", "db.users", strings).unwrap_err().reason,
            BatchRefusal::Repeated { first: 0 }
        );
    }

    #[test]
    fn a_doc_of_another_collection_is_refused() {
        let entries = [(None, "db.users"), (Some(Bson::Int32(1)), "db.tenant_2")];
        let e = check("users", "db.users", entries).unwrap_err();
        assert_eq!(e.position, 1);
        assert_eq!(
            e.reason,
            BatchRefusal::OtherCollection {
                namespace: "db.tenant_2".into()
            }
        );
        assert!(e.to_string().ends_with(
            "the document at position 1 (id \"1\") belongs to another collection, \"db.tenant_2\""
        ));
    }
}
