//! `#[odm(shard_key(..))]`: the shard key of a stored document, as loaded,
//! goes into the filter of every save, reload and delete (MongoDB routes a
//! targeted write on a sharded collection by it), and a save that would
//! change it is refused before anything is sent.

use mongodb::bson::raw::RawDocument;
use mongodb::bson::{Bson, Document as BsonDocument};

use crate::codec::scan::raw_error;
use crate::error::{Error, Result, ShardKeyError, ShardKeyRule};
use crate::plan::diff::Change;
use crate::plan::filter_terms::fixed_by;
use crate::plan::update_ops::same_or_under;

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
        if let Some(field) = fields.iter().find(|f| same_or_under(&change.path, f)) {
            return Err(Error::ShardKey(Box::new(ShardKeyError {
                collection: collection.to_string(),
                id: id.clone(),
                field: field.to_string(),
                path: change.path.clone(),
                rule: ShardKeyRule::Changed,
            })));
        }
    }
    Ok(())
}

/// Refuses a path the caller writes to stored documents (an operator
/// update's, or an upsert's `set`) at, under or above a shard key field:
/// `update_many`, `claim` and the update branch of `upsert` keep the
/// shard key as save() does. `Bson::Null` as the error's id: no one
/// document is named.
pub(crate) fn check_paths<'p>(
    fields: &[&str],
    paths: impl IntoIterator<Item = &'p str>,
    collection: &str,
) -> Result<()> {
    for path in paths {
        let hit = fields
            .iter()
            .find(|f| same_or_under(path, f) || same_or_under(f, path));
        if let Some(field) = hit {
            return Err(Error::ShardKey(Box::new(ShardKeyError {
                collection: collection.to_string(),
                id: Bson::Null,
                field: field.to_string(),
                path: path.to_string(),
                rule: ShardKeyRule::Changed,
            })));
        }
    }
    Ok(())
}

/// [`check_paths`] on every path every operator of `update` writes
/// (`{$set: {..}, $inc: {..}}`): each key, and for `$rename` also each
/// new name (`{$rename: {old: new}}` writes `new`). An entry that is not
/// an operator with a document is left for the server to refuse.
pub(crate) fn check_update(fields: &[&str], update: &BsonDocument, collection: &str) -> Result<()> {
    check_paths(
        fields,
        crate::plan::update_ops::written_paths(update),
        collection,
    )
}

/// Refuses an upsert's `set_on_insert` path at, under or above a shard
/// key field, as [`check_paths`] refuses a `set` path, unless it writes
/// exactly that field with the value `filter` fixes it to (which changes
/// nothing): the inserted document takes its shard key from the filter,
/// the key the upsert is routed by, and another value would store a
/// document under a key other than the one it was routed by (and that no
/// longer matches its own filter).
pub(crate) fn check_set_on_insert(
    fields: &[&str],
    set_on_insert: &BsonDocument,
    filter: &BsonDocument,
    collection: &str,
) -> Result<()> {
    let same_as_filter = |path: &str, value: &Bson| {
        fields.contains(&path)
            && crate::plan::filter_terms::fixed_value(filter, path) == Some(value)
    };
    let differing = set_on_insert
        .iter()
        .filter(|(path, value)| !same_as_filter(path, value))
        .map(|(path, _)| path.as_str());
    check_paths(fields, differing, collection)
}

/// Refuses an upsert whose `filter` does not fix every shard key field by
/// equality ([`fixed_by`]): MongoDB routes an upsert on a sharded
/// collection by its whole shard key, and the document it may insert
/// takes its key from there. Refused before sending on any deployment, so
/// a model declared with a shard key fails the same way in development on
/// a replica set as in production on a sharded cluster.
pub(crate) fn check_upsert_filter(
    fields: &[&str],
    filter: &BsonDocument,
    collection: &str,
) -> Result<()> {
    match fields.iter().find(|f| !fixed_by(filter, f)) {
        Some(field) => Err(Error::ShardKey(Box::new(ShardKeyError {
            collection: collection.to_string(),
            id: Bson::Null,
            field: field.to_string(),
            path: field.to_string(),
            rule: ShardKeyRule::NotInFilter,
        }))),
        None => Ok(()),
    }
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

    #[test]
    fn an_update_path_at_under_or_above_a_shard_key_field_is_refused() {
        let refused =
            |update: BsonDocument| match check_update(&["tenant", "geo.zone"], &update, "users") {
                Err(Error::ShardKey(e)) => Some((e.field, e.path, e.id)),
                Err(e) => panic!("{e:?}"),
                Ok(()) => None,
            };
        let hit = |field: &str, path: &str| Some((field.to_string(), path.to_string(), Bson::Null));
        assert_eq!(
            refused(doc! { "$set": { "a": 1 }, "$inc": { "tenant": 1 } }),
            hit("tenant", "tenant")
        );
        assert_eq!(
            refused(doc! { "$unset": { "tenant.x": "" } }),
            hit("tenant", "tenant.x")
        );
        assert_eq!(
            refused(doc! { "$set": { "geo": {} } }),
            hit("geo.zone", "geo")
        );
        assert_eq!(
            refused(doc! { "$set": { "geo.zone.x": 1 } }),
            hit("geo.zone", "geo.zone.x")
        );
        // `$rename` writes its new name (and removes its old one).
        assert_eq!(
            refused(doc! { "$rename": { "oldTenant": "tenant" } }),
            hit("tenant", "tenant")
        );
        assert_eq!(
            refused(doc! { "$rename": { "tenant": "formerTenant" } }),
            hit("tenant", "tenant")
        );
        assert_eq!(
            refused(doc! { "$rename": { "a": "geo.zone.y" } }),
            hit("geo.zone", "geo.zone.y")
        );
        assert_eq!(refused(doc! { "$set": { "b": "tenant" } }), None);
        // Other fields, look-alike names, and entries that are not operators.
        assert_eq!(
            refused(doc! { "$set": { "tenantName": 1, "geo.area": 2 } }),
            None
        );
        assert_eq!(refused(doc! { "tenant": 1, "$set": 5 }), None);
        assert!(check_paths(&[], ["tenant"], "users").is_ok());
        assert!(check_paths(&["tenant"], ["name", "tenant"], "users").is_err());
    }

    #[test]
    fn set_on_insert_of_a_shard_key_field_must_be_the_filters_value() {
        let fields = ["tenant", "geo.zone"];
        let filter = doc! { "tenant": 7, "geo.zone": "eu" };
        let check = |soi: BsonDocument| check_set_on_insert(&fields, &soi, &filter, "users");
        assert!(check(doc! { "tenant": 7, "name": "a" }).is_ok());
        assert!(check(doc! { "geo.zone": "eu" }).is_ok());
        for refused in [
            doc! { "tenant": 8 },
            doc! { "tenant": "7" },
            doc! { "tenant.x": 1 },
            doc! { "geo": { "zone": "eu" } },
            doc! { "geo.zone": "us" },
        ] {
            let Err(Error::ShardKey(e)) = check(refused.clone()) else {
                panic!("{refused} accepted")
            };
            assert_eq!(e.rule, ShardKeyRule::Changed, "{refused}");
        }
        // Not fixed by the filter: any value is refused.
        let open = doc! { "geo.zone": "eu" };
        assert!(check_set_on_insert(&fields, &doc! { "tenant": 7 }, &open, "users").is_err());
    }

    #[test]
    fn an_upsert_filter_must_fix_every_shard_key_field() {
        let fields = ["tenant", "region"];
        for fixed in [
            doc! { "tenant": 7, "region": "eu", "email": "a" },
            doc! { "$and": [{ "tenant": { "$eq": 7 } }, { "region": "eu" }] },
        ] {
            assert!(
                check_upsert_filter(&fields, &fixed, "users").is_ok(),
                "{fixed}"
            );
        }
        for (open, missing) in [
            (doc! { "email": "a" }, "tenant"),
            (doc! { "tenant": 7 }, "region"),
            (doc! { "tenant": { "$in": [7] }, "region": "eu" }, "tenant"),
            (doc! { "$or": [{ "tenant": 7, "region": "eu" }] }, "tenant"),
        ] {
            let Err(Error::ShardKey(e)) = check_upsert_filter(&fields, &open, "users") else {
                panic!("{open} accepted")
            };
            assert_eq!(
                (e.field.as_str(), e.rule),
                (missing, ShardKeyRule::NotInFilter)
            );
        }
        assert!(check_upsert_filter(&[], &doc! {}, "users").is_ok());
    }
}
