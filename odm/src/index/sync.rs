//! `Model::sync_indexes`: make the declared indexes exist, never touching
//! an index that is in the way.

use futures_util::TryStreamExt;
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use mongodb::ClientSession;

use super::{IndexError, IndexErrorKind};
use crate::error::classify::{classify, command_refusal};
use crate::error::{from_driver, Cause, Error, Result};
use crate::model::Document;
use crate::model::Model;
use crate::schema::index_server as server;
use crate::schema::index_spec::IndexSpec;
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;
use crate::wire::session::send;

/// A pending [`Model::sync_indexes`]; `.await` it, optionally after
/// [`session`](SyncIndexes::session).
#[must_use = "no index is created until it is awaited"]
pub struct SyncIndexes<'a, T: Document> {
    model: &'a Model<T>,
    session: Option<&'a mut ClientSession>,
}

awaitable! {
    impl['a, T: Document] SyncIndexes<'a, T> => Result<SyncReport>;
    /// Creates the indexes inside `session` and its transaction, if one is
    /// open (MongoDB >= 4.4 creates an index inside a transaction only on
    /// a collection that does not exist yet or that the transaction
    /// created). The existing indexes are listed outside the session, as
    /// committed: MongoDB cannot list indexes inside a transaction.
    session;
    into_future(self) self.model.sync(None, self.session)
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

/// What [`Model::sync_indexes`] will do, decided before it sends anything.
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    /// `existing` and `extra` filled in; `created` empty.
    pub report: SyncReport,
    /// The declared indexes to create, in declaration order.
    pub create: Vec<&'a IndexSpec>,
}

/// Compares the `declared` indexes with the `existing` ones (as
/// `listIndexes` returned them) on a server reporting `server` (`None`
/// when its version was not read). Pure.
///
/// Fails, so that nothing is created, when a declared index conflicts with
/// an existing one, or when one to create needs a newer server.
pub(crate) fn plan<'a>(
    collection: &str,
    declared: &'a [IndexSpec],
    existing: &[BsonDocument],
    server: Option<&str>,
) -> std::result::Result<Plan<'a>, Box<IndexError>> {
    let error = |spec: &IndexSpec, kind: IndexErrorKind| {
        Box::new(IndexError {
            collection: collection.to_string(),
            index: spec.name.to_string(),
            declared: spec.to_document(),
            kind,
            cause: Cause::default(),
        })
    };
    let mut report = SyncReport::default();
    let mut create = Vec::new();
    for spec in declared {
        match existing.iter().find(|e| name_of(e) == Some(spec.name)) {
            Some(found) => {
                let differences = differences(spec, found);
                if !differences.is_empty() {
                    return Err(error(spec, conflict(found, differences)));
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
                    return Err(error(spec, conflict(found, differences)));
                }
                create.push(spec);
            }
        }
    }
    // Stable: declaration order within each kind.
    create.sort_by_key(|spec| spec.risk());
    for spec in &create {
        if let (Some(server), Some((required, operators))) = (server, spec.requires()) {
            if !server::accepts(server, required) {
                let kind = IndexErrorKind::ServerTooOld {
                    required: required.to_string(),
                    server: server.to_string(),
                    operators: operators.into_iter().map(str::to_string).collect(),
                };
                return Err(error(spec, kind));
            }
        }
    }
    report.extra = existing
        .iter()
        .filter_map(name_of)
        .filter(|name| *name != "_id_" && !declared.iter().any(|d| d.name == *name))
        .map(str::to_string)
        .collect();
    Ok(Plan { report, create })
}

fn conflict(found: &BsonDocument, differences: Vec<String>) -> IndexErrorKind {
    IndexErrorKind::Conflict {
        existing: found.clone(),
        differences,
    }
}

impl<T: Document> Model<T> {
    /// The indexes `T` declares, each as `createIndexes` takes it (`key`,
    /// `name`, and `unique`, `sparse`, `partialFilterExpression`,
    /// `expireAfterSeconds`, `weights`, `default_language`,
    /// `language_override`, `collation` when set),
    /// in order: field attributes first, then container `index(..)`
    /// attributes.
    pub fn indexes(&self) -> Vec<BsonDocument> {
        T::__odm_meta()
            .indexes
            .iter()
            .map(IndexSpec::to_document)
            .collect()
    }

    /// Creates every declared index that does not exist yet. Idempotent.
    ///
    /// An index on the collection with a declared name but other keys or
    /// options (`unique`, `sparse`, `partialFilterExpression`, TTL,
    /// collation, text weights and languages), or with the declared keys and options under another
    /// name, is an [`Error::Index`] with
    /// [`IndexErrorKind::Conflict`] listing every difference; then nothing is
    /// created, and no index is ever dropped. An index whose partial filter
    /// uses `$in` or `$or` on a server older than MongoDB 6.0 is an
    /// [`Error::Index`] with [`IndexErrorKind::ServerTooOld`], found (from
    /// the server's `buildInfo`) before any index is created. Indexes the
    /// model does not declare are left alone and listed in
    /// [`SyncReport::extra`]. A server that refuses to create an index
    /// gives [`IndexErrorKind::Refused`] with its code and message; the
    /// kinds some servers lack (text, hashed, wildcard, 2dsphere,
    /// collation, TTL) are created before the plain indexes, so such a
    /// refusal comes before those exist.
    ///
    /// `.await` it, optionally after [`session`](SyncIndexes::session).
    pub fn sync_indexes(&self) -> SyncIndexes<'_, T> {
        SyncIndexes {
            model: self,
            session: None,
        }
    }

    /// [`sync_indexes`](Model::sync_indexes) as if the server reported
    /// `version`: tests of the refusal on servers older than the one they
    /// run against.
    #[doc(hidden)]
    pub async fn __sync_indexes_on_server_version(&self, version: &str) -> Result<SyncReport> {
        self.sync(Some(version), None).await
    }

    async fn sync(
        &self,
        assumed_version: Option<&str>,
        mut session: Option<&mut ClientSession>,
    ) -> Result<SyncReport> {
        let existing = self.list_index_documents().await?;
        let declared = T::__odm_meta().indexes;
        let server = match assumed_version {
            Some(version) => Some(version.to_string()),
            None if declared.iter().any(|s| s.requires().is_some()) => {
                Some(self.server_version().await?)
            }
            None => None,
        };
        let Plan { mut report, create } =
            plan(self.name(), declared, &existing, server.as_deref()).map_err(Error::Index)?;
        for spec in create {
            self.create_index_document(spec, session.as_deref_mut())
                .await?;
            report.created.push(spec.name.to_string());
        }
        Ok(report)
    }

    /// The version `buildInfo` reports, e.g. `"8.2.11"` (`""` when it
    /// reports none).
    async fn server_version(&self) -> Result<String> {
        let database = self.database();
        let command = database.run_command(doc! { "buildInfo": 1 });
        let info = Command::new("", "buildInfo")
            .send(command)
            .await
            .map_err(|e| from_driver(e, self.name()))?;
        Ok(info.get_str("version").unwrap_or_default().to_string())
    }

    /// `listIndexes`, as documents; empty when the collection does not
    /// exist. Read outside any session: MongoDB refuses `listIndexes` in
    /// a transaction (and aborts the transaction), and the driver does not
    /// say whether a session has one open.
    async fn list_index_documents(&self) -> Result<Vec<BsonDocument>> {
        let database = self.database();
        let command = database.run_cursor_command(doc! { "listIndexes": self.name() });
        let listed = Command::new(self.name(), "listIndexes").send(command).await;
        let cursor = match listed {
            Ok(cursor) => cursor,
            Err(e) if classify(&e).namespace_not_found => return Ok(Vec::new()),
            Err(e) => return Err(from_driver(e, self.name())),
        };
        cursor
            .try_collect()
            .await
            .map_err(|e| from_driver(e, self.name()))
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
        let log = Command::new(self.name(), "createIndexes").update(&command);
        let database = self.database();
        match log.send(send(database.run_command(command), session)).await {
            Ok(_) => Ok(()),
            Err(e) => match command_refusal(&e) {
                Some((code, message)) => {
                    let message = message.to_string();
                    Err(Error::Index(Box::new(IndexError {
                        collection: self.name().to_string(),
                        index: spec.name.to_string(),
                        declared: spec.to_document(),
                        kind: IndexErrorKind::Refused { code, message },
                        cause: Cause::new(e),
                    })))
                }
                None => Err(from_driver(e, self.name())),
            },
        }
    }
}

fn name_of(index: &BsonDocument) -> Option<&str> {
    index.get_str("name").ok()
}

/// Every way `existing` differs from `spec`, apart from its name.
pub(crate) fn differences(spec: &IndexSpec, existing: &BsonDocument) -> Vec<String> {
    let mut out = Vec::new();
    let declared_keys = spec.listed_keys_document();
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
    out.extend(crate::schema::index_kinds::differences(
        spec.keys,
        spec.expire_after,
        &spec.text,
        spec.collation.as_ref(),
        existing,
    ));
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
    use crate::schema::index_kinds::{Key, TextOptions};
    use crate::schema::index_spec::{Condition, PartialOp, PartialValue, Term};

    const ACTIVE: &[Term] = &[Term::Cond(Condition {
        path: "status",
        op: PartialOp::Eq,
        value: PartialValue::Str("ACTIVE"),
    })];

    const OPEN: &[Term] = &[Term::Cond(Condition {
        path: "status",
        op: PartialOp::In,
        value: PartialValue::List(&[PartialValue::Str("ACTIVE"), PartialValue::Str("PENDING")]),
    })];

    fn spec(unique: bool, partial: &'static [Term]) -> IndexSpec {
        IndexSpec {
            name: "vehicle_id_1",
            keys: &[("vehicle_id", Key::Asc)],
            unique,
            sparse: false,
            partial,
            expire_after: None,
            text: TextOptions::NONE,
            collation: None,
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

    /// Two indexes, the second with `$in`: `email_1` first, so a plan that
    /// created indexes one by one would create it before the refusal.
    fn declared() -> [IndexSpec; 2] {
        [
            IndexSpec {
                name: "email_1",
                keys: &[("email", Key::Asc)],
                unique: true,
                sparse: false,
                partial: &[],
                expire_after: None,
                text: TextOptions::NONE,
                collation: None,
            },
            spec(true, OPEN),
        ]
    }

    #[test]
    fn an_index_with_in_on_an_old_server_stops_the_whole_plan() {
        let declared = declared();
        for old in ["5.0.3", "5.0.0", "4.4.1"] {
            let e = plan("fuel", &declared, &[], Some(old)).unwrap_err();
            assert_eq!(e.index, "vehicle_id_1");
            assert_eq!(
                e.kind,
                IndexErrorKind::ServerTooOld {
                    required: "6.0".into(),
                    server: old.into(),
                    operators: vec!["$in".into()],
                }
            );
            let text = e.to_string();
            assert!(text.contains("needs MongoDB 6.0 or later"), "{text}");
            assert!(text.contains(&format!("(version {old})")), "{text}");
            assert!(text.contains("odm::lock::Leases"), "{text}");
        }
    }

    #[test]
    fn a_new_server_creates_every_missing_index() {
        let declared = declared();
        for new in ["6.0.0", "8.2.11"] {
            let plan = plan("fuel", &declared, &[], Some(new)).unwrap();
            let names: Vec<&str> = plan.create.iter().map(|s| s.name).collect();
            assert_eq!(names, ["email_1", "vehicle_id_1"]);
        }
    }

    #[test]
    fn an_existing_index_needs_no_version_check() {
        let declared = declared();
        let existing = [
            doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
            declared[1].to_document(),
            doc! { "v": 2, "key": { "other": 1 }, "name": "other_1" },
        ];
        let plan = plan("fuel", &declared, &existing, Some("5.0.3")).unwrap();
        assert_eq!(plan.create, [&declared[0]]);
        assert_eq!(plan.report.existing, ["vehicle_id_1"]);
        assert_eq!(plan.report.extra, ["other_1"]);
    }

    #[test]
    fn indexes_every_server_accepts_pass_on_an_old_one() {
        let declared = [spec(true, ACTIVE)];
        let plan = plan("rides", &declared, &[], Some("4.0.0")).unwrap();
        assert_eq!(plan.create.len(), 1);
    }
}
