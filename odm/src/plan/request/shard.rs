//! `#[odm(shard_key(..))]`: the shard key of a stored document, as loaded,
//! goes into the filter of every save, reload and delete (MongoDB routes a
//! targeted write on a sharded collection by it), and a save that would
//! change it is refused before anything is sent.

use mongodb::bson::raw::RawDocument;
use mongodb::bson::{Bson, Document as BsonDocument};

use crate::codec::scan::raw_error;
use crate::error::{Error, Result, ShardKeyError};
use crate::plan::diff::Change;

/// `{field: value}` for every shard key field of `stored` (a stored
/// document, or the value as written), in declaration order. A field the
/// document lacks is `null`, which matches a missing field as MongoDB
/// treats a missing shard key field. `None` for a model without a shard
/// key (the usual case, which a load then pays nothing for).
pub(crate) fn values(fields: &[&str], stored: &RawDocument) -> Result<Option<BsonDocument>> {
    if fields.is_empty() {
        return Ok(None);
    }
    let mut values = crate::codec::new_document::new_document();
    for field in fields {
        let value = match stored.get(field).map_err(raw_error)? {
            Some(value) => Bson::try_from(value).map_err(raw_error)?,
            None => Bson::Null,
        };
        values.insert(*field, value);
    }
    Ok(Some(values))
}

/// Refuses a save whose `changes` write a shard key field (or under it):
/// a stored document keeps its shard key.
pub(crate) fn check(
    fields: &[&str],
    changes: &[Change],
    collection: &str,
    id: &Bson,
) -> Result<()> {
    for change in changes {
        if let Some(field) = fields.iter().find(|f| under(&change.path, f)) {
            return Err(Error::ShardKey(Box::new(ShardKeyError {
                collection: collection.to_string(),
                id: id.clone(),
                field: field.to_string(),
                path: change.path.clone(),
            })));
        }
    }
    Ok(())
}

/// `path` is `field` or a path under it.
fn under(path: &str, field: &str) -> bool {
    path.strip_prefix(field)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use mongodb::bson::{doc, rawdoc};

    use super::*;
    use crate::plan::diff::Op;

    fn set(path: &str) -> Change {
        Change {
            op: Op::Set,
            path: path.to_string(),
            value: Bson::Int32(1),
            positional: false,
            counts: Vec::new(),
            drops: false,
        }
    }

    #[test]
    fn values_are_read_in_declaration_order_and_missing_is_null() {
        let stored = rawdoc! { "_id": 1, "region": "eu", "tenant": 7, "x": 1 };
        assert_eq!(
            values(&["tenant", "region", "zone"], &stored).unwrap(),
            Some(doc! { "tenant": 7, "region": "eu", "zone": null })
        );
        assert_eq!(values(&[], &stored).unwrap(), None);
    }

    #[test]
    fn a_change_at_or_under_a_shard_key_field_is_refused() {
        let id = Bson::Int32(3);
        let e = check(&["tenant"], &[set("name"), set("tenant")], "users", &id).unwrap_err();
        let Error::ShardKey(e) = e else {
            panic!("{e:?}")
        };
        assert_eq!((e.field.as_str(), e.path.as_str()), ("tenant", "tenant"));
        assert!(check(&["geo"], &[set("geo.zone")], "users", &id).is_err());
        // A field whose name only starts like the key is another field.
        assert!(check(
            &["tenant"],
            &[set("tenant_name"), set("name")],
            "users",
            &id
        )
        .is_ok());
        assert!(check(&[], &[set("tenant")], "users", &id).is_ok());
    }
}
