//! What an `update_many` sends, from what the caller gave: pure rules,
//! tested without a server.

use mongodb::bson::{Bson, DateTime, Document};

use crate::error::{Error, Result, ValidationErrors};
use crate::plan::update_ops;
use crate::schema::meta::Meta;

/// The operators whose values are what the field will hold, so the field
/// rules can run on them. Every other operator's result depends on the
/// stored value (`$inc`, `$mul`, `$min`, `$max`, `$push`, `$addToSet`,
/// `$pull`, `$pop`, `$rename`, `$currentDate`) and is not checked.
const CHECKED: [&str; 2] = ["$set", "$unset"];

/// `update` as sent: checked (shard key, field rules), then stamped
/// (`updated_at`) and versioned (`$inc` of the version key unless
/// `keep_version`). `check(field, value, errors)` runs the model's rules of
/// one top-level field.
///
/// An update that is not all operators (a replacement, or empty) is
/// returned as given: the driver refuses it before sending.
pub(crate) fn prepare(
    meta: &Meta,
    collection: &str,
    mut update: Document,
    keep_version: bool,
    now: DateTime,
    mut check: impl FnMut(&str, &Bson, &mut ValidationErrors) -> bool,
) -> Result<Document> {
    if update.is_empty() || update.keys().any(|k| !k.starts_with('$')) {
        return Ok(update);
    }
    crate::plan::request::shard::check_update(meta.shard_key, &update, collection)?;
    crate::plan::kind::check_update(meta.kinds, &update, meta.name)?;
    let mut errors = ValidationErrors::new();
    if let Some(schema) = meta.schema {
        if update_ops::touches(&update, schema.key) {
            errors.push(crate::plan::upgrade::key_refused(schema.key));
        }
    }
    for op in CHECKED {
        let Some(Bson::Document(body)) = update.get(op) else {
            continue;
        };
        for (path, value) in body {
            if path.contains('.') {
                continue;
            }
            let value = if op == "$unset" { &Bson::Null } else { value };
            check(path, value, &mut errors);
        }
    }
    errors.into_result().map_err(Error::Validation)?;
    if let Some(ts) = meta.timestamps {
        if !update_ops::touches(&update, ts.updated_at) {
            update_ops::add(&mut update, "$set", ts.updated_at, Bson::DateTime(now));
        }
    }
    if let Some(key) = meta.versioning.key {
        if !keep_version && !update_ops::touches(&update, key) {
            update_ops::add(&mut update, "$inc", key, Bson::Int32(1));
        }
    }
    Ok(update)
}

/// `filter` as sent, for a model with a schema version: it matches only
/// documents stored at the model's version. An older document is not
/// changed (its upgrade must come first: the update names the model's
/// fields, which it may not have yet), nor a newer one (a newer instance
/// wrote it; this model never writes it).
pub(crate) fn filter(meta: &Meta, mut filter: Document) -> Document {
    if let Some(schema) = meta.schema {
        let at = crate::plan::versioning::int(i64::from(schema.current));
        crate::plan::upgrade::add_term(&mut filter, schema.key, at);
    }
    filter
}

#[cfg(test)]
mod tests {
    use mongodb::bson::doc;

    use super::*;
    use crate::schema::meta::{Timestamps, Versioning};

    fn meta(timestamps: bool, shard_key: &'static [&'static str]) -> Meta {
        Meta {
            name: "User",
            collection: "users",
            versioning: Versioning::DEFAULT,
            fields: &[],
            indexes: &[],
            timestamps: timestamps.then_some(Timestamps {
                created_at: "createdAt",
                updated_at: "updatedAt",
                server_clock: false,
            }),
            shard_key,
            hooks: false,
            kinds: None,
            schema: None,
        }
    }

    fn no_rules(_: &str, _: &Bson, _: &mut ValidationErrors) -> bool {
        false
    }

    #[test]
    fn bumps_the_version_and_stamps_updated_at() {
        let now = DateTime::from_millis(5);
        let sent = prepare(
            &meta(true, &[]),
            "users",
            doc! { "$set": { "status": "EXPIRED" } },
            false,
            now,
            no_rules,
        )
        .unwrap();
        assert_eq!(
            sent,
            doc! { "$set": { "status": "EXPIRED", "updatedAt": now }, "$inc": { "__v": 1 } }
        );
    }

    #[test]
    fn keep_version_and_an_update_writing_the_key_send_no_bump() {
        let m = meta(false, &[]);
        let now = DateTime::now();
        let u = doc! { "$set": { "a": 1 } };
        assert_eq!(prepare(&m, "u", u.clone(), true, now, no_rules).unwrap(), u);
        let own = doc! { "$set": { "a": 1 }, "$inc": { "__v": 5 } };
        assert_eq!(
            prepare(&m, "u", own.clone(), false, now, no_rules).unwrap(),
            own
        );
        // Merged into the caller's own `$inc`.
        assert_eq!(
            prepare(&m, "u", doc! { "$inc": { "n": 2 } }, false, now, no_rules).unwrap(),
            doc! { "$inc": { "n": 2, "__v": 1 } }
        );
    }

    #[test]
    fn a_replacement_or_empty_update_is_left_for_the_driver_to_refuse() {
        let m = meta(true, &[]);
        for u in [doc! {}, doc! { "status": "x" }] {
            assert_eq!(
                prepare(&m, "u", u.clone(), false, DateTime::now(), no_rules).unwrap(),
                u
            );
        }
    }

    #[test]
    fn a_shard_key_path_is_refused_at_under_or_above_the_field() {
        let m = meta(false, &["tenant", "geo.zone"]);
        for u in [
            doc! { "$set": { "tenant": 2 } },
            doc! { "$unset": { "geo": "" } },
            doc! { "$inc": { "geo.zone.n": 1 } },
        ] {
            let e = prepare(&m, "users", u, false, DateTime::now(), no_rules).unwrap_err();
            let Error::ShardKey(e) = &e else {
                panic!("{e:?}")
            };
            assert_eq!(e.id, Bson::Null);
        }
        let e = prepare(
            &m,
            "users",
            doc! { "$set": { "tenant": 2 } },
            false,
            DateTime::now(),
            no_rules,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot change shard key field \"tenant\" (path \"tenant\") of the matched documents \
             in collection \"users\": a stored document keeps its shard key; nothing was sent"
        );
        assert!(prepare(
            &m,
            "users",
            doc! { "$set": { "tenants": 1, "geo.zones": 1 } },
            false,
            DateTime::now(),
            no_rules
        )
        .is_ok());
    }

    #[test]
    fn set_and_unset_of_top_level_fields_are_checked_and_nothing_else() {
        let mut seen = Vec::new();
        let check = |path: &str, value: &Bson, errors: &mut ValidationErrors| {
            seen.push((path.to_string(), value.clone()));
            if path == "status" {
                errors.push(crate::error::ValidationError::new(path, "bad"));
            }
            true
        };
        let u = doc! {
            "$set": { "status": "x", "meta.city": "y" },
            "$unset": { "avatar": "" },
            "$inc": { "visits": 1 },
            "$push": { "tags": "t" },
        };
        let e = prepare(&meta(false, &[]), "u", u, false, DateTime::now(), check).unwrap_err();
        let Error::Validation(errors) = e else {
            panic!("{e:?}")
        };
        assert_eq!(errors.paths(), ["status"]);
        assert_eq!(
            seen,
            [
                ("status".to_string(), Bson::from("x")),
                ("avatar".to_string(), Bson::Null)
            ]
        );
    }
}
