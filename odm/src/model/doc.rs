//! `Doc<T>`: a value with the snapshot it was loaded as, so a save sends
//! only what changed.

use std::fmt;
use std::ops::{Deref, DerefMut};

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{Bson, Document as BsonDocument};

use crate::codec::{self, version_key, Loaded};
use crate::error::Result;
use crate::model::shadow::Shadow;
use crate::model::Document;
use crate::model::Model;
use crate::plan::request::{self, shard, Plan};
use crate::plan::tracked::Tracked;
use crate::plan::upgrade::{self, SchemaState};
use crate::plan::versioning;

mod commit;
mod edits;
mod stored;

pub(crate) use edits::Edits;
use stored::stored_form;

/// A tracked document.
///
/// It derefs to `T`: change the fields, then [`save`](Doc::save). The
/// first save of a document made with [`Model::new_doc`] inserts it; later
/// saves send one `updateOne` with only what changed (see
/// [`changes`](Doc::changes)). A change made through
/// [`field_mut`](Doc::field_mut) instead tells the save which field it
/// reached, so the save need not look at the others.
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
    /// A copy of the value as the snapshot holds it, to find the unchanged
    /// fields without serializing them (see `model::shadow`).
    shadow: Shadow<T>,
    /// What the value was reached in since the snapshot (see
    /// `model::edit`).
    edits: Edits,
    /// The shard key as stored (`None` without `shard_key`).
    shard: Option<BsonDocument>,
    version: Option<i64>,
    increment: bool,
    /// A write of this document failed in a way that may have applied it
    /// (see [`may_have_applied`](crate::error::may_have_applied)): until a
    /// save or reload settles it, a save that bumps the version also
    /// checks it, so a change that landed is not applied twice.
    pub(crate) in_doubt: bool,
    deleted: bool,
    /// The stored schema version, and an upgrade made on load and not
    /// saved yet (for a model with `schema_version`).
    schema: SchemaState,
    model: Model<T>,
}

impl<T: Document> Doc<T> {
    pub(crate) fn new(model: Model<T>, value: T) -> Self {
        let schema = SchemaState::default();
        Self::with_state(model, value, Tracked::New, None, None, schema)
    }

    pub(crate) fn loaded(model: Model<T>, loaded: Loaded<T>) -> Result<Self> {
        // Built whole, not as a new `Doc` then tracked: a load is hot, and
        // the shard key's document is then made once.
        let (shard, schema) = stored_state::<T>(&loaded, model.name())?;
        let tracked = Tracked::Clean {
            id: loaded.id,
            stored: loaded.stored,
        };
        let version = loaded.version;
        let doc = Self::with_state(model, loaded.value, tracked, shard, version, schema);
        Ok(doc)
    }

    /// A `Doc` in `tracked` state, not yet written by this copy.
    fn with_state(
        model: Model<T>,
        value: T,
        tracked: Tracked,
        shard: Option<BsonDocument>,
        version: Option<i64>,
        schema: SchemaState,
    ) -> Self {
        Doc {
            value,
            tracked,
            shadow: Shadow::None,
            edits: Edits::NONE,
            shard,
            version,
            increment: false,
            in_doubt: false,
            deleted: false,
            schema,
            model,
        }
    }

    /// Replaces value and tracked state with a fresh read (a reload).
    pub(crate) fn replace(&mut self, loaded: Loaded<T>) -> Result<()> {
        let (shard, schema) = stored_state::<T>(&loaded, self.model.name())?;
        self.shard = shard;
        self.schema = schema;
        self.tracked = Tracked::Clean {
            id: loaded.id,
            stored: loaded.stored,
        };
        self.shadow = Shadow::None;
        self.edits = Edits::NONE;
        self.version = loaded.version;
        self.increment = false;
        self.in_doubt = false;
        self.value = loaded.value;
        Ok(())
    }

    /// Tracks `fresh` (just read) as the state the value is compared with,
    /// and takes `value` (the merge of this copy's changes onto it) as the
    /// value: a [`rebase`](Doc::rebase). The next save sends what turns
    /// `fresh` into `value`; a pending [`increment`](Doc::increment) stays.
    pub(crate) fn rebased(&mut self, fresh: Loaded<T>, value: T) -> Result<()> {
        let increment = self.increment;
        self.replace(fresh)?;
        // The snapshot of the stored value, taken before the value moves.
        let _ = &mut **self;
        self.value = value;
        self.increment = increment;
        Ok(())
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

    /// The schema version the document was stored at when this copy
    /// loaded it, if it was older than the model's and was upgraded in
    /// memory on load (`#[odm(schema_version = N, migrate = path)]`); the
    /// next [`save`](Doc::save) writes the upgrade, and this is `None`
    /// again once it landed. `None` for a document loaded at the model's
    /// version (or above it), and for a new one.
    pub fn migrated_from(&self) -> Option<u32> {
        self.schema.upgrade.as_ref().map(|u| u.from)
    }

    /// The schema version of the stored document as this copy knows it:
    /// as loaded (before an upgrade on load), or as last saved. `None`
    /// for a model without `schema_version`, and for a new document;
    /// `Some(0)` for a stored document without a schema version.
    pub fn schema_version(&self) -> Option<i64> {
        T::__odm_meta().schema?;
        if self.is_new() {
            return None;
        }
        Some(self.schema.stored.unwrap_or(0))
    }

    /// The schema version the document is stored at, when it is above
    /// the model's (a newer instance wrote it): such a document is never
    /// written by this model.
    pub(crate) fn newer_schema(&self) -> Option<i64> {
        let declared = T::__odm_meta().schema?;
        let stored = self.schema.stored?;
        (stored > i64::from(declared.current)).then_some(stored)
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

    /// What this copy remembers of the stored document (what a plan of it
    /// is made from).
    pub(crate) fn tracked(&self) -> &Tracked {
        &self.tracked
    }

    /// The stored `_id`; `None` for a new document.
    pub(crate) fn stored_id(&self) -> Option<&Bson> {
        self.tracked.id()
    }

    /// The document as this copy last read or wrote it (the snapshot once
    /// taken): what the value's changes are measured against; `None` for a
    /// new document or one whose snapshot could not be taken.
    pub(crate) fn as_stored(&self) -> Option<&RawDocumentBuf> {
        match &self.tracked {
            Tracked::Clean { stored, .. } => Some(stored),
            Tracked::Snapshot { snapshot, .. } => Some(snapshot),
            Tracked::New | Tracked::Unserializable { .. } => None,
        }
    }

    /// The `(filter, update)` the next save would send as an `updateOne`;
    /// `None` when it would send nothing: nothing changed, the document is
    /// new (its save is an insert), or the value cannot be saved (it does
    /// not serialize to BSON, e.g. a `u64` above `i64::MAX` or a map with
    /// non-string keys, or it holds a top-level key that is not a field
    /// path): then the save fails with [`Error::Serialize`](crate::Error::Serialize) and sends
    /// nothing. [`try_changes`](Doc::try_changes) tells that case apart.
    /// With `#[odm(hooks)]` it shows the save before `before_save` runs:
    /// what the hook changes is not in it.
    pub fn changes(&self) -> Option<(BsonDocument, BsonDocument)> {
        self.try_changes().ok().flatten()
    }

    /// [`changes`](Doc::changes), with the error the save would return
    /// when the value cannot be saved.
    pub fn try_changes(&self) -> Result<Option<(BsonDocument, BsonDocument)>> {
        let Some(target) = self.target() else {
            return Ok(None);
        };
        let plan = self.plan()?;
        if plan.is_empty() {
            return Ok(None);
        }
        Ok(Some(request::request::<T>(target, self.version, &plan)))
    }

    /// The dotted BSON paths changed since the document was loaded or last
    /// saved: the keys the next update writes (`tags` for a push to or pull
    /// from `tags`, `comments.1.text` for an in-place change). Like
    /// [`changes`](Doc::changes), empty when the value cannot be saved
    /// (the save then fails with [`Error::Serialize`](crate::Error::Serialize) and writes nothing).
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

    /// What the next save would do.
    pub(crate) fn plan(&self) -> Result<Plan> {
        let (value, tracked) = (&self.value, &self.tracked);
        let unchanged = match self.edits.known::<T>() {
            // The fields reached are compared with the copy (a push's
            // unchanged first elements); the others are known, and so
            // are the first elements of those only appended to.
            Some(known) => {
                let mut unchanged = self.shadow.unchanged(value, known.reached);
                unchanged.fields |= known.fields;
                unchanged.prefixes.extend(known.prefixes);
                unchanged
            }
            None => self.shadow.unchanged(value, u128::MAX),
        };
        let (increment, in_doubt) = (self.increment, self.in_doubt);
        request::plan(value, tracked, unchanged, increment, in_doubt, &self.schema)
    }

    /// `{_id, shard key}` of the stored document; `None` for a new one.
    pub(crate) fn target(&self) -> Option<BsonDocument> {
        Some(request::target(self.tracked.id()?, self.shard()))
    }

    /// The filter of a delete: [`target`](Doc::target), and an enum
    /// model's kind as loaded (a copy of one kind never deletes a document
    /// another copy turned into another kind).
    pub(crate) fn delete_target(&self) -> Option<BsonDocument> {
        let mut target = self.target()?;
        if let Some(kinds) = T::__odm_meta().kinds {
            // An upgrade pending that gave the document its kind: the store
            // does not hold the loaded kind yet.
            let upgraded = self.schema.upgrade.as_deref();
            if upgraded.is_some_and(|u| crate::plan::upgrade::rewrites(u, kinds.key)) {
                return Some(target);
            }
            if let Ok(Some(kind)) = crate::plan::kind::loaded(kinds, &self.tracked) {
                target.insert(kinds.key, kind);
            }
        }
        Some(target)
    }

    /// The shard key as stored.
    pub(crate) fn shard(&self) -> Option<&BsonDocument> {
        self.shard.as_ref()
    }

    pub(crate) fn is_deleted(&self) -> bool {
        self.deleted
    }

    pub(crate) fn mark_deleted(&mut self) {
        self.deleted = true;
    }

    /// The stored document as this copy loaded or last saved it, without
    /// odm's keys (the version, the schema version, the fence): what a version error's stored
    /// changes and [`rebase`](Doc::rebase) compare the store with. `None`
    /// for a new document or one whose value could not be serialized.
    pub(crate) fn loaded_form(&self) -> Option<std::borrow::Cow<'_, mongodb::bson::RawDocument>> {
        match &self.tracked {
            Tracked::Clean { stored, .. } => {
                Some(version_key::hidden(stored, T::__odm_meta().hidden()))
            }
            Tracked::Snapshot { snapshot, base, .. } => Some(std::borrow::Cow::Borrowed(
                base.as_deref().unwrap_or(snapshot),
            )),
            Tracked::New | Tracked::Unserializable { .. } => None,
        }
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
            shadow: self.shadow.duplicate(),
            edits: self.edits.clone(),
            shard: self.shard.clone(),
            version: self.version,
            increment: self.increment,
            in_doubt: self.in_doubt,
            deleted: self.deleted,
            schema: self.schema.clone(),
            model: self.model.clone(),
        }
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
    /// snapshot: what the next save compares with. The whole value is
    /// reached: the save looks at every field.
    fn deref_mut(&mut self) -> &mut T {
        self.take_snapshot();
        self.edits = Edits::Any;
        &mut self.value
    }
}

impl<T: Document> Doc<T> {
    /// The value, to change in the field of bit `index` only (see
    /// [`Doc::field_mut`]), after taking the snapshot as `DerefMut` does.
    pub(crate) fn reach(&mut self, index: usize) -> &mut T {
        self.take_snapshot();
        self.edits.reached(index);
        &mut self.value
    }

    /// The value, to append to the sequence of bit `index` only (see
    /// [`Doc::push`]), after taking the snapshot as `DerefMut` does; `len`
    /// tells the sequence's length before the append.
    pub(crate) fn appending(&mut self, index: usize, len: impl FnOnce(&mut T) -> usize) -> &mut T {
        self.take_snapshot();
        self.edits.appends::<T>(index, len(&mut self.value));
        &mut self.value
    }

    /// Replaces what the value counts as reached in (see
    /// `model::edit::reached_only`).
    pub(crate) fn set_edits(&mut self, edits: Edits) {
        self.edits = edits;
    }

    /// The snapshot of a loaded or saved value not changed since: taken
    /// before its first change.
    fn take_snapshot(&mut self) {
        if let Tracked::Clean { id, stored } = &self.tracked {
            let id = id.clone();
            let keys = T::__odm_meta().hidden();
            let snapshot = codec::to_raw_noting(&self.value, stored.as_bytes().len()).and_then(
                |(snapshot, offsets)| {
                    let (missing, base) = stored_form(stored, keys, &snapshot)?;
                    Ok((missing, base, snapshot, offsets))
                },
            );
            self.tracked = match snapshot {
                Ok((missing, base, snapshot, offsets)) => Tracked::Snapshot {
                    id,
                    base,
                    snapshot,
                    offsets,
                    missing,
                },
                Err(e) => Tracked::Unserializable {
                    id,
                    error: e.to_string(),
                },
            };
        }
    }
}

/// The shard key as stored and the schema state of a document just read:
/// an upgrade on load is measured against the document as stored (whose
/// shard key the save's filter holds).
fn stored_state<T: Document>(
    loaded: &Loaded<T>,
    collection: &str,
) -> Result<(Option<BsonDocument>, SchemaState)> {
    let meta = T::__odm_meta();
    let Some(upgraded) = &loaded.upgraded else {
        let shard = shard::values(meta.shard_key, &loaded.stored)?;
        let schema = SchemaState {
            stored: loaded.schema,
            upgrade: None,
        };
        return Ok((shard, schema));
    };
    let shard = shard::values(meta.shard_key, &upgraded.original)?;
    let upgrade = upgrade::upgrade(
        &upgraded.original,
        &loaded.stored,
        meta.hidden(),
        upgraded.from,
        (collection, &loaded.id),
    )?;
    let schema = SchemaState {
        stored: loaded.schema,
        upgrade: Some(Box::new(upgrade)),
    };
    Ok((shard, schema))
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
