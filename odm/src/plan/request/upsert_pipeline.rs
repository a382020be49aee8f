//! The form of an upsert that bumps the version of a document it updates
//! and stores version 0 in one it inserts, in one command.
//!
//! The operator form cannot say both: `$inc: {__v: 1}` beside
//! `$setOnInsert: {__v: 0}` writes one path twice, which the server
//! refuses. An update pipeline can: it computes each field with `$cond` on
//! "is this the inserted document". The server builds an inserted document
//! from the filter's equality terms, so the filter gets one more,
//! `{<MARKER>: null}`: it matches every stored document (none has the
//! field), is copied into an inserted one as `null`, and tells the two
//! apart inside the pipeline; its last stage removes it.
//!
//! Every other field keeps the operator form's meaning:
//! - `$set: {f: v}` becomes `f: {$literal: v}` (a literal, so a string
//!   starting with `$` stays a string);
//! - `$setOnInsert: {f: v}` becomes `f: {$cond: [new, {$literal: v}, "$f"]}`
//!   (an existing document keeps its field, or keeps lacking it);
//! - a dotted path `a.b` writes into the embedded document `a` with
//!   `$mergeObjects: ["$a", {b: ..}]`: created when `a` is missing, an
//!   error when `a` is an array or a scalar, as the operator form's.
//!   (A numeric segment, `tags.3`, therefore addresses a field of an
//!   embedded document, never an array element: the server refuses it on
//!   an array.)
//!
//! On a model with a schema version, the inserted document stores the
//! model's version under its key, and a stored document at any other
//! schema version is left exactly as it is (every field, the version key
//! included, keeps its stored value): an older one must be upgraded
//! before a write of the model's fields lands on it, a newer one is never
//! written by this model. The caller tells them apart by the schema
//! version of the document the upsert returns.

use mongodb::bson::{doc, Bson, Document};

/// The field that marks the inserted document while the pipeline runs.
pub(crate) const MARKER: &str = "__odm_upserting";

/// The upsert's filter with the marker term.
pub(crate) fn filter(mut filter: Document) -> Document {
    filter.insert(MARKER, Bson::Null);
    filter
}

/// `true` inside the pipeline when the document is the inserted one.
fn is_new() -> Bson {
    Bson::Document(doc! { "$eq": [{ "$type": format!("${MARKER}") }, "null"] })
}

/// The bump of a stored version: `+1` for a well-formed version (a
/// non-negative integral number of any type, as `$inc` adds), `1` when the
/// document has none; any other value is left for the loader to refuse.
fn bumped(key: &str) -> Bson {
    let v = format!("${key}");
    Bson::Document(doc! {
        "$switch": {
            "branches": [
                {
                    "case": { "$eq": [{ "$type": &v }, "missing"] },
                    "then": 1,
                },
                {
                    "case": { "$and": [
                        { "$isNumber": &v },
                        { "$gte": [&v, 0] },
                        { "$eq": [&v, { "$trunc": &v }] },
                    ] },
                    "then": { "$add": [&v, 1] },
                },
            ],
            "default": &v,
        }
    })
}

/// `value` for the field `name` of an inserted document or one stored at
/// schema `version` (under `key`); the stored field (or its absence) for a
/// document at any other schema version.
fn keep_other_versions(value: Bson, name: &str, key: &str, version: u32) -> Bson {
    let version = crate::plan::versioning::int(i64::from(version));
    let writable = doc! { "$or": [is_new(), { "$eq": [format!("${key}"), version] }] };
    Bson::Document(doc! { "$cond": [writable, value, format!("${name}")] })
}

/// A field's new value: a tree of embedded fields, or an expression.
#[derive(Debug, Clone)]
enum Node {
    Expr(Bson),
    Tree(Vec<(String, Node)>),
}

impl Node {
    /// Puts `value` at the dotted `path` (relative to this node), replacing
    /// what was there.
    fn put(children: &mut Vec<(String, Node)>, path: &str, value: Bson) {
        let (head, rest) = match path.split_once('.') {
            Some((head, rest)) => (head, Some(rest)),
            None => (path, None),
        };
        let at = match children.iter().position(|(name, _)| name == head) {
            Some(at) => at,
            None => {
                children.push((head.to_string(), Node::Tree(Vec::new())));
                children.len() - 1
            }
        };
        match rest {
            None => children[at].1 = Node::Expr(value),
            Some(rest) => {
                if !matches!(children[at].1, Node::Tree(_)) {
                    children[at].1 = Node::Tree(Vec::new());
                }
                if let Node::Tree(inner) = &mut children[at].1 {
                    Node::put(inner, rest, value);
                }
            }
        }
    }

    /// The expression for this node at `path`.
    fn expression(&self, path: &str) -> Bson {
        match self {
            Node::Expr(e) => e.clone(),
            Node::Tree(children) => {
                let mut fields = Document::new();
                for (name, child) in children {
                    fields.insert(name.clone(), child.expression(&format!("{path}.{name}")));
                }
                Bson::Document(doc! { "$mergeObjects": [format!("${path}"), fields] })
            }
        }
    }
}

/// Both branches of one top-level field.
#[derive(Default)]
struct Field {
    /// Written on update and insert.
    always: Vec<(String, Bson)>,
    /// Written on insert only (after `always`, so it wins a shared path).
    on_insert: Vec<(String, Bson)>,
}

fn tree(entries: &[&(String, Bson)]) -> Node {
    let mut root = Vec::new();
    for (path, value) in entries {
        Node::put(&mut root, path, value.clone());
    }
    root.pop()
        .map(|(_, node)| node)
        .unwrap_or(Node::Tree(Vec::new()))
}

/// The pipeline of an upsert whose operator form is `$set: set,
/// $setOnInsert: set_on_insert`, bumping `version_key` (when given) on
/// update and storing 0 on insert; with `schema` (the schema version key
/// and the model's version), storing that version on insert and changing
/// only a stored document at that version.
pub(crate) fn pipeline(
    set: &Document,
    set_on_insert: &Document,
    version_key: Option<&str>,
    schema: Option<(&str, u32)>,
) -> Vec<Document> {
    let literal = |v: &Bson| Bson::Document(doc! { "$literal": v.clone() });
    let mut fields: Vec<(String, Field)> = Vec::new();
    let mut slot = |path: &str| -> usize {
        let top = path.split('.').next().unwrap_or(path);
        match fields.iter().position(|(name, _)| name == top) {
            Some(i) => i,
            None => {
                fields.push((top.to_string(), Field::default()));
                fields.len() - 1
            }
        }
    };
    let mut entries: Vec<(usize, bool, String, Bson)> = Vec::new();
    for (path, value) in set {
        entries.push((slot(path), false, path.clone(), literal(value)));
    }
    for (path, value) in set_on_insert {
        entries.push((slot(path), true, path.clone(), literal(value)));
    }
    if let Some(key) = version_key {
        entries.push((slot(key), false, key.to_string(), bumped(key)));
        entries.push((slot(key), true, key.to_string(), Bson::Int32(0)));
    }
    if let Some((key, version)) = schema {
        let version = crate::plan::versioning::int(i64::from(version));
        entries.push((slot(key), true, key.to_string(), version));
    }
    for (at, insert_only, path, value) in entries {
        let field = &mut fields[at].1;
        let side = if insert_only {
            &mut field.on_insert
        } else {
            &mut field.always
        };
        side.push((path, value));
    }
    let mut stage = Document::new();
    for (name, field) in &fields {
        let updated: Vec<_> = field.always.iter().collect();
        let inserted: Vec<_> = field.always.iter().chain(&field.on_insert).collect();
        let on_insert = tree(&inserted).expression(name);
        let value = if field.on_insert.is_empty() {
            on_insert
        } else {
            let on_update = if updated.is_empty() {
                Bson::String(format!("${name}"))
            } else {
                tree(&updated).expression(name)
            };
            Bson::Document(doc! { "$cond": [is_new(), on_insert, on_update] })
        };
        let value = match schema {
            Some((key, version)) => keep_other_versions(value, name, key, version),
            None => value,
        };
        stage.insert(name.clone(), value);
    }
    vec![doc! { "$set": stage }, doc! { "$unset": MARKER }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_is_literal_and_set_on_insert_keeps_the_stored_field() {
        let p = pipeline(
            &doc! { "last": "$x" },
            &doc! { "plan": "free" },
            Some("__v"),
            None,
        );
        assert_eq!(p.len(), 2);
        let stage = p[0].get_document("$set").unwrap();
        assert_eq!(
            stage.get("last").unwrap(),
            &Bson::Document(doc! { "$literal": "$x" })
        );
        assert_eq!(
            stage.get("plan").unwrap(),
            &Bson::Document(doc! { "$cond": [is_new(), { "$literal": "free" }, "$plan"] })
        );
        assert_eq!(
            stage.get("__v").unwrap(),
            &Bson::Document(doc! { "$cond": [is_new(), 0, bumped("__v")] })
        );
        assert_eq!(p[1], doc! { "$unset": MARKER });
    }

    #[test]
    fn dotted_paths_merge_into_their_parent() {
        let p = pipeline(
            &doc! { "meta.city": "Oslo", "meta.geo.lat": 1 },
            &doc! { "meta.since": 2020 },
            None,
            None,
        );
        let stage = p[0].get_document("$set").unwrap();
        let updated = doc! { "$mergeObjects": ["$meta", {
            "city": { "$literal": "Oslo" },
            "geo": { "$mergeObjects": ["$meta.geo", { "lat": { "$literal": 1 } }] },
        }] };
        let inserted = doc! { "$mergeObjects": ["$meta", {
            "city": { "$literal": "Oslo" },
            "geo": { "$mergeObjects": ["$meta.geo", { "lat": { "$literal": 1 } }] },
            "since": { "$literal": 2020 },
        }] };
        assert_eq!(
            stage.get("meta").unwrap(),
            &Bson::Document(doc! { "$cond": [is_new(), inserted, updated] })
        );
        assert_eq!(stage.len(), 1);
    }

    #[test]
    fn on_insert_wins_a_path_written_by_both() {
        let p = pipeline(&doc! { "a": 1 }, &doc! { "a": 2 }, None, None);
        let stage = p[0].get_document("$set").unwrap();
        assert_eq!(
            stage.get("a").unwrap(),
            &Bson::Document(doc! { "$cond": [is_new(), { "$literal": 2 }, { "$literal": 1 }] })
        );
    }

    #[test]
    fn with_a_schema_version_only_the_inserted_or_a_current_document_changes() {
        let p = pipeline(&doc! { "a": 1 }, &doc! {}, Some("__v"), Some(("__sv", 2)));
        let stage = p[0].get_document("$set").unwrap();
        let writable = doc! { "$or": [is_new(), { "$eq": ["$__sv", 2] }] };
        assert_eq!(
            stage.get("a").unwrap(),
            &Bson::Document(doc! { "$cond": [writable.clone(), { "$literal": 1 }, "$a"] })
        );
        assert_eq!(
            stage.get("__v").unwrap(),
            &Bson::Document(doc! {
                "$cond": [writable.clone(), { "$cond": [is_new(), 0, bumped("__v")] }, "$__v"]
            })
        );
        // Stored on insert; kept (at 2, or at any other version) on update.
        assert_eq!(
            stage.get("__sv").unwrap(),
            &Bson::Document(doc! {
                "$cond": [writable, { "$cond": [is_new(), 2, "$__sv"] }, "$__sv"]
            })
        );
        assert_eq!(stage.len(), 3);
    }

    #[test]
    fn the_filter_gets_the_marker() {
        assert_eq!(
            filter(doc! { "email": "a" }),
            doc! { "email": "a", MARKER: null }
        );
    }
}
