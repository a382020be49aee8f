//! A model filter, applied to change events: its field paths are moved
//! under `fullDocument`. Pure.

use mongodb::bson::{doc, Bson, Document as BsonDocument};

/// The operation types whose events carry the document: the filter judges
/// them. Every other event (a delete, a drop, an invalidate) passes.
const WITH_DOCUMENT: [&str; 3] = ["insert", "update", "replace"];

/// The `$match` stage that applies `filter` (written against the model's
/// documents) to change events: the events of [`WITH_DOCUMENT`] whose
/// `fullDocument` matches, and every other event. `Err` names a top-level
/// operator that cannot be moved under `fullDocument` (`$expr`, `$where`,
/// `$text`, ...).
pub(crate) fn match_stage(filter: &BsonDocument) -> Result<BsonDocument, String> {
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
            match_stage(&doc! { "status": "ACTIVE" }).unwrap(),
            doc! { "$match": { "$or": [
                { "operationType": { "$nin": ["insert", "update", "replace"] } },
                { "fullDocument.status": "ACTIVE" },
            ] } }
        );
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
