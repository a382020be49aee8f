//! `Model::sync_indexes`: make the declared indexes exist, never touching
//! an index that is in the way.

use std::future::IntoFuture;

use futures_util::TryStreamExt;
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use mongodb::error::ErrorKind;
use mongodb::ClientSession;

use super::{IndexError, IndexErrorKind, IndexSpec};
use crate::document::Document;
use crate::error::{Error, Result};
use crate::model::Model;
use crate::save::BoxFuture;
use crate::session::send;

/// The server's code for `listIndexes` on a collection that does not exist.
const NAMESPACE_NOT_FOUND: i32 = 26;

/// A pending [`Model::sync_indexes`]; `.await` it, optionally after
/// [`session`](SyncIndexes::session).
#[must_use = "no index is created until it is awaited"]
pub struct SyncIndexes<'a, T: Document> {
    model: &'a Model<T>,
    session: Option<&'a mut ClientSession>,
}

impl<'a, T: Document> SyncIndexes<'a, T> {
    /// Creates the indexes inside `session` and its transaction, if one is
    /// open (MongoDB >= 4.4 creates an index inside a transaction only on
    /// a collection that does not exist yet or that the transaction
    /// created). The existing indexes are listed outside the session, as
    /// committed: MongoDB cannot list indexes inside a transaction.
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }
}

impl<'a, T: Document> IntoFuture for SyncIndexes<'a, T> {
    type Output = Result<SyncReport>;
    type IntoFuture = BoxFuture<'a, Result<SyncReport>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.model.sync(self.session))
    }
}

/// What [`Model::sync_indexes`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SyncReport {
    /// Declared indexes that were missing and have been created.
    pub created: Vec<String>,
    /// Declared indexes that already existed exactly as declared.
    pub existing: Vec<String>,
    /// Indexes on the collection that the model does not declare (other than
    /// `_id_`). They are left alone.
    pub extra: Vec<String>,
}

impl<T: Document> Model<T> {
    /// The indexes `T` declares, in order: field attributes first, then
    /// container `index(..)` attributes.
    pub fn indexes(&self) -> &'static [IndexSpec] {
        T::__odm_meta().indexes
    }

    /// Creates every declared index that does not exist yet. Idempotent.
    ///
    /// An index on the collection with a declared name but other keys or
    /// options (`unique`, `sparse`, `partialFilterExpression`, TTL,
    /// collation), or with the declared keys and options under another
    /// name, is an [`Error::Index`] with
    /// [`IndexErrorKind::Conflict`] listing every difference; then nothing is
    /// created, and no index is ever dropped. Indexes the model does not
    /// declare are left alone and listed in [`SyncReport::extra`]. A server
    /// that refuses to create an index gives [`IndexErrorKind::Refused`]
    /// with its code and message.
    ///
    /// `.await` it, optionally after [`session`](SyncIndexes::session).
    pub fn sync_indexes(&self) -> SyncIndexes<'_, T> {
        SyncIndexes {
            model: self,
            session: None,
        }
    }

    async fn sync(&self, mut session: Option<&mut ClientSession>) -> Result<SyncReport> {
        let existing = self.list_index_documents().await?;
        let declared = self.indexes();
        let mut report = SyncReport::default();
        let mut missing = Vec::new();
        for spec in declared {
            match existing.iter().find(|e| name_of(e) == Some(spec.name)) {
                Some(found) => {
                    let differences = differences(spec, found);
                    if !differences.is_empty() {
                        return Err(self.conflict(spec, found, differences));
                    }
                    report.existing.push(spec.name.to_string());
                }
                None => {
                    let same = existing
                        .iter()
                        .find(|e| name_of(e) != Some("_id_") && differences(spec, e).is_empty());
                    if let Some(found) = same {
                        let differences = vec![format!(
                            "name: declared \"{}\", existing \"{}\"",
                            spec.name,
                            name_of(found).unwrap_or("")
                        )];
                        return Err(self.conflict(spec, found, differences));
                    }
                    missing.push(spec);
                }
            }
        }
        report.extra = existing
            .iter()
            .filter_map(name_of)
            .filter(|name| *name != "_id_" && !declared.iter().any(|d| d.name == *name))
            .map(str::to_string)
            .collect();
        for spec in missing {
            self.create_index_document(spec, session.as_deref_mut())
                .await?;
            report.created.push(spec.name.to_string());
        }
        Ok(report)
    }

    /// `listIndexes`, as documents; empty when the collection does not
    /// exist. Read outside any session: MongoDB refuses `listIndexes` in
    /// a transaction (and aborts the transaction), and the driver does not
    /// say whether a session has one open.
    async fn list_index_documents(&self) -> Result<Vec<BsonDocument>> {
        let listed = self
            .database()
            .run_cursor_command(doc! { "listIndexes": self.name() })
            .await;
        let cursor = match listed {
            Ok(cursor) => cursor,
            Err(e) if command_code(&e) == Some(NAMESPACE_NOT_FOUND) => return Ok(Vec::new()),
            Err(e) => return Err(Error::Driver(e)),
        };
        cursor.try_collect().await.map_err(Error::Driver)
    }

    async fn create_index_document(
        &self,
        spec: &IndexSpec,
        session: Option<&mut ClientSession>,
    ) -> Result<()> {
        let command = doc! {
            "createIndexes": self.name(),
            "indexes": [spec.to_document()],
        };
        let database = self.database();
        match send(database.run_command(command), session).await {
            Ok(_) => Ok(()),
            Err(e) => match &*e.kind {
                ErrorKind::Command(c) => Err(Error::Index(Box::new(IndexError {
                    collection: self.name().to_string(),
                    index: spec.name.to_string(),
                    declared: spec.to_document(),
                    kind: IndexErrorKind::Refused {
                        code: c.code,
                        message: c.message.clone(),
                    },
                }))),
                _ => Err(Error::Driver(e)),
            },
        }
    }

    fn conflict(&self, spec: &IndexSpec, found: &BsonDocument, differences: Vec<String>) -> Error {
        Error::Index(Box::new(IndexError {
            collection: self.name().to_string(),
            index: spec.name.to_string(),
            declared: spec.to_document(),
            kind: IndexErrorKind::Conflict {
                existing: found.clone(),
                differences,
            },
        }))
    }
}

fn command_code(e: &mongodb::error::Error) -> Option<i32> {
    match &*e.kind {
        ErrorKind::Command(c) => Some(c.code),
        _ => None,
    }
}

fn name_of(index: &BsonDocument) -> Option<&str> {
    index.get_str("name").ok()
}

/// Every way `existing` differs from `spec`, apart from its name.
pub(crate) fn differences(spec: &IndexSpec, existing: &BsonDocument) -> Vec<String> {
    let mut out = Vec::new();
    let declared_keys = spec.keys_document();
    let existing_keys = existing.get_document("key").cloned().unwrap_or_default();
    if !same_keys(&declared_keys, &existing_keys) {
        out.push(format!(
            "keys: declared {declared_keys}, existing {existing_keys}"
        ));
    }
    for (option, declared) in [("unique", spec.unique), ("sparse", spec.sparse)] {
        let found = truthy(existing.get(option));
        if found != declared {
            out.push(format!("{option}: declared {declared}, existing {found}"));
        }
    }
    let declared_filter = spec.partial_filter();
    let existing_filter = existing.get_document("partialFilterExpression").ok();
    let same_filter = match (&declared_filter, existing_filter) {
        (None, None) => true,
        (Some(a), Some(b)) => normalize_doc(a) == normalize_doc(b),
        _ => false,
    };
    if !same_filter {
        out.push(format!(
            "partialFilterExpression: declared {}, existing {}",
            shown(declared_filter.as_ref()),
            shown(existing_filter)
        ));
    }
    for option in ["expireAfterSeconds", "collation"] {
        if let Some(found) = existing.get(option) {
            out.push(format!("{option}: declared none, existing {found}"));
        }
    }
    out
}

fn shown(doc: Option<&BsonDocument>) -> String {
    doc.map_or_else(|| "none".to_string(), ToString::to_string)
}

/// Index options may come back as `true` or as a number.
fn truthy(value: Option<&Bson>) -> bool {
    match value {
        Some(Bson::Boolean(b)) => *b,
        Some(Bson::Int32(n)) => *n != 0,
        Some(Bson::Int64(n)) => *n != 0,
        Some(Bson::Double(n)) => *n != 0.0,
        _ => false,
    }
}

/// Same fields in the same order, directions equal as numbers.
fn same_keys(a: &BsonDocument, b: &BsonDocument) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b.iter())
            .all(|((ka, va), (kb, vb))| ka == kb && normalize(va) == normalize(vb))
}

/// Numbers of any BSON type compare by value; document keys in any order.
fn normalize(value: &Bson) -> Bson {
    match value {
        Bson::Int32(n) => Bson::Double(f64::from(*n)),
        Bson::Int64(n) => Bson::Double(*n as f64),
        Bson::Document(d) => Bson::Document(normalize_doc(d)),
        Bson::Array(items) => Bson::Array(items.iter().map(normalize).collect()),
        other => other.clone(),
    }
}

fn normalize_doc(doc: &BsonDocument) -> BsonDocument {
    let mut entries: Vec<(String, Bson)> =
        doc.iter().map(|(k, v)| (k.clone(), normalize(v))).collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{Condition, PartialOp, PartialValue};

    const ACTIVE: &[Condition] = &[Condition {
        path: "status",
        op: PartialOp::Eq,
        value: PartialValue::Str("ACTIVE"),
    }];

    fn spec(unique: bool, partial: &'static [Condition]) -> IndexSpec {
        IndexSpec {
            name: "vehicle_id_1",
            keys: &[("vehicle_id", 1)],
            unique,
            sparse: false,
            partial,
        }
    }

    #[test]
    fn an_identical_index_has_no_differences() {
        let existing = doc! {
            "v": 2, "key": { "vehicle_id": 1.0 }, "name": "vehicle_id_1", "unique": true,
            "partialFilterExpression": { "status": "ACTIVE" },
        };
        assert!(differences(&spec(true, ACTIVE), &existing).is_empty());
    }

    #[test]
    fn every_difference_is_listed() {
        let existing = doc! {
            "v": 2, "key": { "vehicle_id": -1 }, "name": "vehicle_id_1", "sparse": true,
            "expireAfterSeconds": 60,
        };
        assert_eq!(
            differences(&spec(true, ACTIVE), &existing),
            [
                "keys: declared { \"vehicle_id\": 1 }, existing { \"vehicle_id\": -1 }",
                "unique: declared true, existing false",
                "sparse: declared false, existing true",
                "partialFilterExpression: declared { \"status\": \"ACTIVE\" }, existing none",
                "expireAfterSeconds: declared none, existing 60",
            ]
        );
    }

    #[test]
    fn several_conditions_are_combined_with_and() {
        const TERMS: &[Condition] = &[
            Condition {
                path: "age",
                op: PartialOp::Gte,
                value: PartialValue::Int(18),
            },
            Condition {
                path: "email",
                op: PartialOp::Exists,
                value: PartialValue::Bool(true),
            },
            Condition {
                path: "score",
                op: PartialOp::Lt,
                value: PartialValue::Float(0.5),
            },
            Condition {
                path: "kind",
                op: PartialOp::Type,
                value: PartialValue::Str("string"),
            },
        ];
        assert_eq!(
            spec(false, TERMS).partial_filter(),
            Some(doc! { "$and": [
                { "age": { "$gte": 18 } },
                { "email": { "$exists": true } },
                { "score": { "$lt": 0.5 } },
                { "kind": { "$type": "string" } },
            ] })
        );
        assert_eq!(spec(false, &[]).partial_filter(), None);
    }
}
