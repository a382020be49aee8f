//! A model filter, applied to change events: its field paths are moved
//! under `fullDocument`. Pure.

use mongodb::bson::{doc, Bson, Document as BsonDocument};

/// The operation types whose events carry the document: the filter judges
/// them. Every other event (a delete, a drop, an invalidate) passes.
const WITH_DOCUMENT: [&str; 3] = ["insert", "update", "replace"];

/// The keys of a change event itself (beside its `_id`, the resume token,
/// which a model filter means as the document's `_id`): a model filter
/// naming one would be moved under `fullDocument` and match nothing.
const EVENT_KEYS: [&str; 14] = [
    "operationType",
    "ns",
    "to",
    "documentKey",
    "updateDescription",
    "fullDocument",
    "fullDocumentBeforeChange",
    "clusterTime",
    "wallTime",
    "txnNumber",
    "lsid",
    "collectionUUID",
    "operationDescription",
    "splitEvent",
];

/// The `$match` stage that applies `filter` (written against the model's
/// documents) to change events: the events of [`WITH_DOCUMENT`] whose
/// `fullDocument` matches, and every other event. `Err` names a top-level
/// operator that cannot be moved under `fullDocument` (`$expr`, `$where`,
/// `$text`, ...), or a key of the change events themselves
/// (`operationType`, `ns`, `updateDescription`, ...) that is not one of
/// `fields` (the model's stored field names), pointing at `pipeline`.
pub(crate) fn match_stage(filter: &BsonDocument, fields: &[&str]) -> Result<BsonDocument, String> {
    refuse_event_keys(filter, fields)?;
    let moved = under_full_document(filter)?;
    Ok(doc! {
        "$match": {
            "$or": [
                { "operationType": { "$nin": WITH_DOCUMENT.to_vec() } },
                moved,
            ]
        }
    })
}

/// `Err` for a path of `filter` (through `$and`, `$or`, `$nor`) whose first
/// part is a key of the change events and no field of the model.
fn refuse_event_keys(filter: &BsonDocument, fields: &[&str]) -> Result<(), String> {
    for (key, value) in filter {
        match (key.as_str(), value) {
            ("$and" | "$or" | "$nor", Bson::Array(branches)) => {
                for branch in branches {
                    if let Bson::Document(branch) = branch {
                        refuse_event_keys(branch, fields)?;
                    }
                }
            }
            (path, _) => {
                let first = path.split('.').next().unwrap_or(path);
                if EVENT_KEYS.contains(&first) && !fields.contains(&first) {
                    return Err(format!(
                        "\"{path}\" names a key of the change events, but `filter` is written \
                         against the model's documents (its paths are moved under \
                         `fullDocument`, so it would match nothing); filter the events with \
                         a stage in `pipeline` instead: \
                         `.pipeline([doc! {{ \"$match\": {{ \"{path}\": .. }} }}])`"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `filter` with every field path prefixed by `fullDocument.`, through
/// `$and`, `$or` and `$nor`.
pub(crate) fn under_full_document(filter: &BsonDocument) -> Result<BsonDocument, String> {
    let mut out = BsonDocument::new();
    for (key, value) in filter {
        match key.as_str() {
            "$and" | "$or" | "$nor" => {
                let Bson::Array(branches) = value else {
                    return Err(format!("{key} takes an array of filters"));
                };
                let mut moved = Vec::with_capacity(branches.len());
                for branch in branches {
                    let Bson::Document(branch) = branch else {
                        return Err(format!("{key} takes an array of filters"));
                    };
                    moved.push(Bson::Document(under_full_document(branch)?));
                }
                out.insert(key.clone(), moved);
            }
            "$comment" => {
                out.insert(key.clone(), value.clone());
            }
            operator if operator.starts_with('$') => {
                return Err(format!(
                    "{operator} cannot be applied to the events' documents; \
                     add a stage with `pipeline` instead"
                ));
            }
            path => {
                out.insert(format!("fullDocument.{path}"), value.clone());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_move_under_full_document_through_combinators() {
        let filter = doc! {
            "status": "ACTIVE",
            "profile.age": { "$gte": 18 },
            "$or": [{ "tags": "a" }, { "$and": [{ "x": 1 }, { "y": { "$exists": true } }] }],
            "$nor": [{ "banned": true }],
        };
        assert_eq!(
            under_full_document(&filter).unwrap(),
            doc! {
                "fullDocument.status": "ACTIVE",
                "fullDocument.profile.age": { "$gte": 18 },
                "$or": [
                    { "fullDocument.tags": "a" },
                    { "$and": [{ "fullDocument.x": 1 }, { "fullDocument.y": { "$exists": true } }] },
                ],
                "$nor": [{ "fullDocument.banned": true }],
            }
        );
    }

    #[test]
    fn events_without_a_document_pass_the_stage() {
        assert_eq!(
            match_stage(&doc! { "status": "ACTIVE" }, &["_id", "status"]).unwrap(),
            doc! { "$match": { "$or": [
                { "operationType": { "$nin": ["insert", "update", "replace"] } },
                { "fullDocument.status": "ACTIVE" },
            ] } }
        );
    }

    #[test]
    fn keys_of_the_events_are_refused_unless_the_model_has_such_a_field() {
        let fields = ["_id", "status", "ns"];
        for key in [
            "operationType",
            "updateDescription.updatedFields.status",
            "fullDocument.status",
        ] {
            let err = match_stage(&doc! { key: "x" }, &fields).unwrap_err();
            assert!(
                err.starts_with(&format!("\"{key}\" names a key of the change events")),
                "{err}"
            );
            assert!(err.contains("`.pipeline([doc! { \"$match\""), "{err}");
        }
        let nested = doc! { "$or": [{ "status": "A" }, { "operationType": "delete" }] };
        assert!(match_stage(&nested, &fields)
            .unwrap_err()
            .starts_with("\"operationType\""));
        // A field of the model by that name, and the document's `_id`, are
        // the document's.
        assert!(match_stage(&doc! { "ns": "x", "_id": 1 }, &fields).is_ok());
    }

    #[test]
    fn operators_that_read_the_whole_event_are_refused() {
        for op in ["$expr", "$where", "$text", "$jsonSchema"] {
            let err = under_full_document(&doc! { op: {} }).unwrap_err();
            assert!(err.starts_with(op), "{err}");
        }
        let nested = doc! { "$or": [{ "$expr": { "$eq": ["$a", 1] } }] };
        assert!(under_full_document(&nested)
            .unwrap_err()
            .starts_with("$expr"));
        assert!(under_full_document(&doc! { "$and": 1 }).is_err());
    }
}
