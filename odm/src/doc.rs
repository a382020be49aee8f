//! `Doc<T>`: a value with the snapshot it was loaded as, so a save sends
//! only what changed.

use std::fmt;
use std::ops::{Deref, DerefMut};

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{doc, Bson, Document as BsonDocument};

use crate::atomic::timestamps::{self, Stamp};
use crate::codec::{self, Loaded};
use crate::diff::{self, Change, Missing};
use crate::document::Document;
use crate::error::{Error, NotFoundError, Result, VersionError};
use crate::model::Model;
use crate::versioning::{self, Effect};

/// A tracked document.
///
/// It derefs to `T`: change the fields, then [`save`](Doc::save). The
/// first save of a document made with [`Model::new_doc`] inserts it; later
/// saves send one `updateOne` with only what changed (see
/// [`changes`](Doc::changes)).
///
/// A loaded document takes its snapshot (the value serialized, what the
/// next save compares with) at the first mutable access, so a document
/// that is only read costs only its decoding (it keeps the stored bytes
/// until then, to tell which fields the store lacks). Consequently a change made
/// without `&mut` (through a `Cell`, `RefCell` or `Mutex` inside the model)
/// before that first access is not seen as a change.
pub struct Doc<T: Document> {
    value: T,
    /// What the value is compared with.
    tracked: Tracked,
    version: Option<i64>,
    increment: bool,
    deleted: bool,
    model: Model<T>,
}

/// The state changes are measured against.
#[derive(Clone)]
enum Tracked {
    /// Not inserted yet.
    New,
    /// Stored, and the value is still exactly as loaded: its snapshot is
    /// taken on the first `&mut` access (`DerefMut`), so a document that is
    /// only read never serializes. `stored` is the document as read.
    Clean { id: Bson, stored: RawDocumentBuf },
    /// Stored: the value as loaded or saved, serialized, and the paths the
    /// stored document lacks (filled in by `#[serde(default)]`).
    Snapshot {
        id: Bson,
        snapshot: RawDocumentBuf,
        missing: Missing,
    },
    /// Stored, but the loaded value could not be serialized to take its
    /// snapshot; a save reports this error.
    Unserializable { id: Bson, error: String },
}

impl Tracked {
    fn id(&self) -> Option<&Bson> {
        match self {
            Tracked::New => None,
            Tracked::Clean { id, .. }
            | Tracked::Snapshot { id, .. }
            | Tracked::Unserializable { id, .. } => Some(id),
        }
    }
}

/// What the next save would do, computed from the current value.
pub(crate) struct Plan {
    /// The current value, serialized: the next snapshot on success.
    pub current: RawDocumentBuf,
    pub changes: Vec<Change>,
    pub effect: Effect,
    /// The `timestamps` this save writes; put into the value on success.
    pub stamp: Option<Stamp>,
}

impl<T: Document> Doc<T> {
    pub(crate) fn new(model: Model<T>, value: T) -> Self {
        Doc {
            value,
            tracked: Tracked::New,
            version: None,
            increment: false,
            deleted: false,
            model,
        }
    }

    pub(crate) fn loaded(model: Model<T>, loaded: Loaded<T>) -> Self {
        Doc {
            value: loaded.value,
            tracked: Tracked::Clean {
                id: loaded.id,
                stored: loaded.stored,
            },
            version: loaded.version,
            increment: false,
            deleted: false,
            model,
        }
    }

    /// The model this document belongs to.
    pub fn model(&self) -> &Model<T> {
        &self.model
    }

    /// `true` until the document has been inserted.
    pub fn is_new(&self) -> bool {
        matches!(self.tracked, Tracked::New)
    }

    /// The version as loaded or last saved; `None` for a new document, with
    /// `versioning = false`, or for a stored document that has no version.
    pub fn version(&self) -> Option<i64> {
        self.version
    }

    /// Forces a version check and bump on the next save, even when nothing
    /// else changed (Mongoose's `increment()`).
    pub fn increment(&mut self) -> &mut Self {
        self.increment = true;
        self
    }

    /// The `_id` as stored (for a new document: as it will be inserted).
    pub fn id(&self) -> Result<Bson> {
        match self.tracked.id() {
            Some(id) => Ok(id.clone()),
            None => codec::read_id(&codec::to_raw(&self.value)?),
        }
    }

    /// The stored `_id`; `None` for a new document.
    pub(crate) fn stored_id(&self) -> Option<&Bson> {
        self.tracked.id()
    }

    /// The `(filter, update)` the next save would send as an `updateOne`;
    /// `None` when it would send nothing: nothing changed, the document is
    /// new (its save is an insert), or the value cannot be saved (it does
    /// not serialize to BSON, e.g. a `u64` above `i64::MAX` or a map with
    /// non-string keys, or it holds a top-level key that is not a field
    /// path): then the save fails with [`Error::Serialize`] and sends
    /// nothing. [`try_changes`](Doc::try_changes) tells that case apart.
    pub fn changes(&self) -> Option<(BsonDocument, BsonDocument)> {
        self.try_changes().ok().flatten()
    }

    /// [`changes`](Doc::changes), with the error the save would return
    /// when the value cannot be saved.
    pub fn try_changes(&self) -> Result<Option<(BsonDocument, BsonDocument)>> {
        let Some(id) = self.tracked.id() else {
            return Ok(None);
        };
        let plan = self.plan()?;
        if plan.changes.is_empty() && !plan.effect.bump {
            return Ok(None);
        }
        Ok(Some(self.request(id, &plan)))
    }

    /// The dotted BSON paths changed since the document was loaded or last
    /// saved: the keys the next update writes (`tags` for a push to or pull
    /// from `tags`, `comments.1.text` for an in-place change). Like
    /// [`changes`](Doc::changes), empty when the value cannot be saved
    /// (the save then fails with [`Error::Serialize`] and writes nothing).
    pub fn modified_paths(&self) -> Vec<String> {
        match self.plan() {
            Ok(plan) => versioning::modified_paths(&plan.changes),
            Err(_) => Vec::new(),
        }
    }

    /// The value, untracked.
    pub fn into_inner(self) -> T {
        self.value
    }

    pub(crate) fn plan(&self) -> Result<Plan> {
        let capacity = match &self.tracked {
            Tracked::Snapshot { snapshot, .. } => snapshot.as_bytes().len() + 64,
            Tracked::Clean { stored, .. } => stored.as_bytes().len(),
            _ => 0,
        };
        let mut current = codec::to_raw_sized(&self.value, capacity)?;
        let mut changes = match &self.tracked {
            Tracked::Snapshot {
                snapshot, missing, ..
            } => diff::fill_missing(diff::diff(snapshot, &current)?, missing, &current)?,
            // Untouched since loaded or saved: nothing changed.
            Tracked::Clean { .. } | Tracked::New => Vec::new(),
            Tracked::Unserializable { error, .. } => {
                return Err(Error::from(
                    <mongodb::bson::ser::Error as serde::ser::Error>::custom(error),
                ))
            }
        };
        let rules = &T::__odm_meta().versioning;
        let effect = versioning::effect(rules, &changes, self.increment);
        let stamp = timestamps::stamp_plan::<T>(self.is_new(), &mut current, &mut changes)?;
        Ok(Plan {
            current,
            changes,
            effect,
            stamp,
        })
    }

    pub(crate) fn request(&self, id: &Bson, plan: &Plan) -> (BsonDocument, BsonDocument) {
        let key = T::__odm_meta().versioning.key;
        (
            versioning::filter(id, key, self.version, plan.effect, &plan.changes),
            versioning::update(&plan.changes, key, plan.effect),
        )
    }

    /// The error for a save whose filter matched nothing.
    pub(crate) fn no_match(&self, id: Bson, filter: BsonDocument, plan: &Plan) -> Error {
        if plan.effect.any() || crate::guard::guarded(&plan.changes, plan.effect.check) {
            Error::Version(Box::new(VersionError {
                id,
                version: self.version.unwrap_or(0),
                modified_paths: versioning::modified_paths(&plan.changes),
            }))
        } else {
            self.not_found(filter)
        }
    }

    pub(crate) fn not_found(&self, filter: BsonDocument) -> Error {
        Error::NotFound(Box::new(NotFoundError {
            collection: self.model.name().to_string(),
            filter,
        }))
    }

    pub(crate) fn is_deleted(&self) -> bool {
        self.deleted
    }

    /// Moves the snapshot forward after a successful write.
    pub(crate) fn commit(&mut self, id: Bson, plan: Plan, inserted: bool) {
        let key = T::__odm_meta().versioning.key;
        if inserted {
            self.version = key.map(|_| 0);
        } else if plan.effect.bump && key.is_some() {
            self.version = Some(self.version.unwrap_or(0) + 1);
        }
        let mut missing = match std::mem::replace(&mut self.tracked, Tracked::New) {
            Tracked::Snapshot { missing, .. } => missing,
            _ => Missing::new(),
        };
        diff::settle_missing(&mut missing, &plan.changes);
        let snapshot = match plan.stamp {
            Some(stamp) => {
                stamp.apply(&mut self.value);
                codec::to_raw(&self.value).unwrap_or(plan.current)
            }
            None => plan.current,
        };
        self.tracked = Tracked::Snapshot {
            id,
            snapshot,
            missing,
        };
        self.increment = false;
    }

    /// A copy with the same value and tracking state (for rolling back a
    /// transaction).
    pub(crate) fn duplicate(&self) -> Self
    where
        T: Clone,
    {
        Doc {
            value: self.value.clone(),
            tracked: self.tracked.clone(),
            version: self.version,
            increment: self.increment,
            deleted: self.deleted,
            model: self.model.clone(),
        }
    }

    /// Re-reads the document, dropping local changes.
    pub async fn reload(&mut self) -> Result<()> {
        let Some(id) = self.tracked.id() else {
            return Err(self.not_found(doc! {}));
        };
        let filter = doc! { "_id": id.clone() };
        match self.model.find_raw(filter.clone(), None).await? {
            Some(raw) => {
                let loaded = codec::load::<T>(raw, self.model.name())?;
                self.value = loaded.value;
                self.tracked = Tracked::Clean {
                    id: loaded.id,
                    stored: loaded.stored,
                };
                self.version = loaded.version;
                self.increment = false;
                Ok(())
            }
            None => Err(self.not_found(filter)),
        }
    }

    /// Deletes the stored document. Afterwards a save returns
    /// [`Error::NotFound`] without writing.
    pub async fn delete(&mut self) -> Result<()> {
        let Some(id) = self.tracked.id() else {
            return Err(self.not_found(doc! {}));
        };
        let filter = doc! { "_id": id.clone() };
        let log = crate::command_log::Command::new(self.model.name(), "delete").filter(&filter);
        let result = log
            .send(self.model.collection().delete_one(filter.clone()))
            .await
            .map_err(|e| crate::error::from_driver(e, self.model.name()))?;
        if result.deleted_count == 0 {
            return Err(self.not_found(filter));
        }
        self.deleted = true;
        Ok(())
    }
}

impl<T: Document> Deref for Doc<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: Document> DerefMut for Doc<T> {
    /// Before the first change of a loaded or saved value, takes its
    /// snapshot: what the next save compares with.
    fn deref_mut(&mut self) -> &mut T {
        if let Tracked::Clean { id, stored } = &self.tracked {
            let id = id.clone();
            let snapshot = codec::to_raw_sized(&self.value, stored.as_bytes().len())
                .and_then(|snapshot| Ok((diff::missing_paths(stored, &snapshot)?, snapshot)));
            self.tracked = match snapshot {
                Ok((missing, snapshot)) => Tracked::Snapshot {
                    id,
                    snapshot,
                    missing,
                },
                Err(e) => Tracked::Unserializable {
                    id,
                    error: e.to_string(),
                },
            };
        }
        &mut self.value
    }
}

impl<T: Document + fmt::Debug> fmt::Debug for Doc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Doc")
            .field("value", &self.value)
            .field("version", &self.version)
            .field("is_new", &self.is_new())
            .finish()
    }
}
