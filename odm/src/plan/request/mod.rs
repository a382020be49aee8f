//! What a save sends, as pure functions of the tracked state, the current
//! value and the model's rules: the diff, the version effect, the
//! timestamps and the shard key, assembled into one `(filter, update)`.
//! No I/O here; `model::save` sends the request and commits the
//! result into the [`Doc`](crate::Doc).

pub(crate) mod fence;
pub(crate) mod find_modify;
pub(crate) mod retry;
pub(crate) mod shard;
pub(crate) mod upsert_pipeline;
pub(crate) mod write;

use mongodb::bson::{Bson, Document as BsonDocument};

use crate::codec;
use crate::codec::offsets::Offsets;
use crate::codec::same::Unchanged;
use crate::error::{Error, NotFoundError, Result, VersionError};
use crate::plan::current::Current;
use crate::plan::diff::{self, Change};
use crate::plan::guard::position::{self, Element};
use crate::plan::guard::rewrite::{self, Rewrite};
use crate::plan::kind::{self, KindTerm};
use crate::plan::timestamps::{self, Stamp};
use crate::plan::tracked::Tracked;
use crate::plan::upgrade::{self, SchemaState};
use crate::plan::versioning::{self, Effect};
use crate::schema::meta::Concurrency;
use crate::schema::Schema;

/// What the next save would do, computed from the current value.
pub(crate) struct Plan {
    /// The current value, serialized (whole, or as a patch of the
    /// snapshot): the next snapshot on success.
    pub current: Current,
    /// What the value was known to hold as the snapshot does (top-level
    /// fields, the first elements of sequences): copied, not serialized,
    /// into `current` (or, in a patch, left as they are).
    pub unchanged: crate::codec::same::Unchanged,
    pub changes: Vec<Change>,
    pub effect: Effect,
    /// The `timestamps` this save writes; put into the value on success.
    pub stamp: Option<Stamp>,
    /// The rewrite guards of the changes (see [`guard::rewrite`](crate::plan::guard::rewrite)).
    pub rewrites: Vec<Rewrite>,
    /// The positional guards of the changes (see [`guard::position`](crate::plan::guard::position)).
    pub positions: Vec<Element>,
    /// The stored field order of a sub-document will differ from
    /// `current`'s after this save (see [`diff::Out::reordered`]).
    pub reordered: bool,
    /// An enum model's kind as loaded, which the filter requires, and
    /// whether this save changes it (see [`kind`](crate::plan::kind)).
    pub kind: Option<KindTerm>,
    /// The schema version terms, for a model with a schema version (see
    /// [`upgrade`](crate::plan::upgrade)).
    pub schema: Option<upgrade::Terms>,
    /// The commit may read the pushed values again, to append them to
    /// the stored form the `Doc` keeps apart from the snapshot
    /// (`Tracked::Snapshot::base`; see [`request_moving`]). `true` unless
    /// the `Doc` says otherwise (`Doc::commit_reads_pushes`).
    pub pushes_read: bool,
}

impl Plan {
    /// Whether the save writes nothing and checks nothing.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
            && !self.effect.bump
            && self.schema.as_ref().is_none_or(|t| t.write.is_none())
    }

    /// Whether the filter holds terms of what this copy knows of the
    /// stored document beside the version and the per-change guards: the
    /// rewrite and positional guards, an enum model's kind, the schema
    /// version. A miss on any of them is a stale copy when the document
    /// still exists.
    fn checks_loaded(&self) -> bool {
        !self.rewrites.is_empty()
            || !self.positions.is_empty()
            || self.kind.is_some()
            || self.schema.is_some()
    }
}

/// The plan of a save of `value`, tracked as `tracked`; `increment` is
/// [`Doc::increment`](crate::Doc::increment) having been called; `in_doubt`
/// is an earlier write of this copy having failed in a way that may have
/// applied it: then a save that bumps the version also checks it, so a
/// change that landed (a default-mode push) is not applied twice.
/// `schema` is what the `Doc` knows of the stored schema version: the
/// save of an upgrade made on load also writes it (see [`upgrade`]).
pub(crate) fn plan<T: Schema>(
    value: &T,
    tracked: &Tracked,
    unchanged: Unchanged,
    increment: bool,
    in_doubt: bool,
    schema: &SchemaState,
) -> Result<Plan> {
    let meta = T::__odm_meta();
    let pending = schema.upgrade.as_deref().filter(|_| meta.schema.is_some());
    let Changed {
        mut current,
        mut changes,
        reordered,
        mut kind,
    } = match patched(value, tracked, &unchanged, pending.is_none())? {
        Some(changed) => changed,
        None => changed(value, tracked, &unchanged)?,
    };
    if let (Some(upgrade), Some(kinds)) = (pending, meta.kinds) {
        if upgrade::rewrites(upgrade, kinds.key) {
            // The upgrade gave the document its kind (or renamed it): the
            // store does not hold the loaded kind yet, and the upgrade's
            // guard pins what it holds instead.
            kind = None;
        }
    }
    let mut kept = Vec::new();
    if let Some(upgrade) = pending {
        let whole = current.make_whole(tracked.snapshot());
        (changes, kept) = upgrade::merge(&upgrade.changes, changes, whole)?;
    }
    let effect = versioning::effect(&meta.versioning, &changes, increment);
    let mut effect = kind::effect(kind.as_ref(), &meta.versioning, effect);
    if pending.is_some() && meta.versioning.key.is_some() {
        // A rewrite of every field the upgrade touched: checked and bumped.
        effect = Effect::ALL;
    }
    effect.check |= in_doubt && effect.bump;
    let (mut rewrites, mut positions) = loaded_guards(&meta.versioning, tracked, &changes, effect)?;
    if let Some(upgrade) = pending {
        // The upgrade's fields are guarded by their stored values instead.
        rewrites.retain(|(path, _)| !upgrade::rewrites(upgrade, path));
        rewrites.extend(upgrade.guards.iter().cloned());
        // An element in a field the upgrade rewrote is written whole
        // (`upgrade::merge`), guarded by the field's stored value; in any
        // other field the loaded element is the stored one, and its guard
        // stays: an in-place edit does not bump the version, so the
        // version alone does not order two edits of one element.
        positions.retain(|element| !upgrade::rewrites(upgrade, element.field()));
    }
    let is_new = matches!(tracked, Tracked::New);
    let stamp = match meta.timestamps {
        Some(_) => timestamps::stamp_plan::<T>(is_new, &mut current, tracked, &mut changes)?,
        None => None,
    };
    let schema = meta.schema.map(|declared| upgrade::Terms {
        key: declared.key,
        stored: schema.stored,
        write: pending.map(|_| declared.current),
        kept,
    });
    Ok(Plan {
        current,
        unchanged,
        changes,
        effect,
        stamp,
        rewrites,
        positions,
        reordered,
        kind,
        schema,
        pushes_read: true,
    })
}

/// What a save's value holds beside its tracked state: the value
/// serialized, the changes, whether a sub-document's stored order will
/// differ ([`diff::Out::reordered`]), an enum model's kind term.
struct Changed {
    current: Current,
    changes: Vec<Change>,
    reordered: bool,
    kind: Option<KindTerm>,
}

/// [`Changed`], the value serialized whole (its fields known unchanged
/// copied from the snapshot) and diffed against the snapshot.
fn changed<T: Schema>(value: &T, tracked: &Tracked, unchanged: &Unchanged) -> Result<Changed> {
    let capacity = match tracked {
        // Room to grow (a push, a longer string) without the buffer
        // growing, which copies it: 1/16th of the document, at least 64.
        Tracked::Snapshot { snapshot, .. } => {
            let len = snapshot.as_bytes().len();
            len + (len / 16).max(64)
        }
        Tracked::Clean { stored, .. } => stored.as_bytes().len(),
        _ => 0,
    };
    let (current, offsets) = match tracked {
        // The fields known unchanged are copied from the snapshot.
        Tracked::Snapshot { snapshot, .. } if unchanged.any() => {
            let splice = codec::rawser::splice::Splice {
                from: snapshot.as_bytes(),
                names: T::__odm_tracked(),
                unchanged,
            };
            codec::to_raw_spliced(value, capacity, &splice)?
        }
        _ => (codec::to_raw_sized(value, capacity)?, Offsets::new()),
    };
    let meta = T::__odm_meta();
    let mut reordered = false;
    let mut kind = None;
    let changes = match tracked {
        Tracked::Snapshot {
            snapshot, missing, ..
        } => {
            let out = diff::diff_out(snapshot, &current)?;
            reordered = out.reordered;
            let mut changes = diff::fill_missing(out.changes, missing, &current)?;
            kind::check_id(&changes)?;
            kind = kind::term(meta.kinds, tracked, &changes)?;
            kind::fill_new_kind(kind.as_ref(), &mut changes, missing, &current)?;
            changes
        }
        // Untouched since loaded or saved: nothing changed.
        Tracked::Clean { .. } => {
            kind = kind::term(meta.kinds, tracked, &[])?;
            Vec::new()
        }
        Tracked::New => Vec::new(),
        Tracked::Unserializable { error, .. } => {
            return Err(Error::from(
                <crate::bson_release::SerError as serde::ser::Error>::custom(error),
            ))
        }
    };
    Ok(Changed {
        current: Current::Whole(current, offsets),
        changes,
        reordered,
        kind,
    })
}

/// [`Changed`] as a patch of the snapshot, when the value is one: only
/// the fields not known unchanged are serialized and diffed, each against
/// the snapshot's element (see `codec::rawser::patch`). The same changes
/// as [`changed`] finds, for a value with the snapshot's top-level keys in
/// its order, of a model whose save needs nothing else of the whole
/// value: no enum model (its kind), no upgrade on load pending (`plain`),
/// no paths the store lacks (a `timestamps` stamp is one more piece of
/// the patch: `timestamps::stamp_plan`). `None` otherwise, and when no
/// field is known unchanged (nothing to skip) or an array is known
/// unchanged in its first elements and then edited (the splice copies
/// them once).
fn patched<T: Schema>(
    value: &T,
    tracked: &Tracked,
    unchanged: &Unchanged,
    plain: bool,
) -> Result<Option<Changed>> {
    let Tracked::Snapshot {
        snapshot,
        offsets,
        missing,
        ..
    } = tracked
    else {
        return Ok(None);
    };
    let meta = T::__odm_meta();
    let plain = plain && meta.kinds.is_none();
    // An array known the same in its first elements, then edited, is
    // spliced (an array appended to is patched).
    let edited = unchanged
        .prefixes
        .iter()
        .any(|&(i, _)| !unchanged.prefix_of(i).1);
    if !plain || !missing.is_empty() || unchanged.fields == 0 || edited {
        return Ok(None);
    }
    let splice = codec::rawser::splice::Splice {
        from: snapshot.as_bytes(),
        names: T::__odm_tracked(),
        unchanged,
    };
    let tail = |i, n, out: &mut codec::tail::TailOut<'_>| value.__odm_tail(i, n, out);
    let Some(patch) = codec::rawser::patch::to_patch(value, &splice, offsets, &tail) else {
        return Ok(None);
    };
    let Some(out) = diff::diff_patch(snapshot.as_bytes(), &patch)? else {
        return Ok(None);
    };
    kind::check_id(&out.changes)?;
    crate::plan::current::count_patch();
    Ok(Some(Changed {
        current: Current::Patch(patch),
        changes: out.changes,
        reordered: out.reordered,
        kind: None,
    }))
}

/// The guards of a save that require what this copy loaded (the rewrite
/// and positional guards): none without a version key (the model opted
/// out of concurrency control), nor for a change that
/// `optimistic_concurrency` covers when the save checks the version
/// (every save changing that path, in-place edits included, bumps it).
fn loaded_guards(
    rules: &crate::schema::meta::Versioning,
    tracked: &Tracked,
    changes: &[Change],
    effect: Effect,
) -> Result<(Vec<Rewrite>, Vec<Element>)> {
    let Tracked::Snapshot { snapshot, base, .. } = tracked else {
        return Ok((Vec::new(), Vec::new()));
    };
    if rules.key.is_none() {
        return Ok((Vec::new(), Vec::new()));
    }
    let covered = |c: &Change| {
        rules.concurrency != Concurrency::Off
            && effect.check
            && versioning::concurrency_applies(rules.concurrency, std::slice::from_ref(c))
    };
    // Filtered in place: a whole-array change's value is not copied.
    let open = || changes.iter().filter(|c| !covered(c));
    let loaded = base.as_deref().unwrap_or(snapshot);
    Ok((
        rewrite::guards(open(), loaded, rules.skip)?,
        position::guards(open(), loaded, rules.skip)?,
    ))
}

/// The `(filter, update)` of an update of the document stored as
/// `target` (`{_id, shard key fields}`), loaded at `version`.
pub(crate) fn request<T: Schema>(
    target: BsonDocument,
    version: Option<i64>,
    plan: &Plan,
) -> (BsonDocument, BsonDocument) {
    let key = T::__odm_meta().versioning.key;
    let filter = filter::<T>(target, version, plan);
    let update = versioning::update(&plan.changes, key, plan.effect);
    (filter, with_schema(update, plan))
}

/// [`request`] of a plan sent once and then only committed: the values
/// nothing reads after the send move into the update instead of being
/// copied (see [`versioning::update_moving`]).
pub(crate) fn request_moving<T: Schema>(
    target: BsonDocument,
    version: Option<i64>,
    plan: &mut Plan,
) -> (BsonDocument, BsonDocument) {
    let key = T::__odm_meta().versioning.key;
    let filter = filter::<T>(target, version, plan);
    let update = versioning::update_moving(&mut plan.changes, key, plan.effect, plan.pushes_read);
    (filter, with_schema(update, plan))
}

/// `update` with the schema version terms of `plan`.
fn with_schema(mut update: BsonDocument, plan: &Plan) -> BsonDocument {
    if let Some(terms) = &plan.schema {
        terms.add_update(&mut update);
    }
    update
}

/// The filter of [`request`] alone.
pub(crate) fn filter<T: Schema>(
    target: BsonDocument,
    version: Option<i64>,
    plan: &Plan,
) -> BsonDocument {
    let key = T::__odm_meta().versioning.key;
    let mut target = target;
    if let Some(term) = &plan.kind {
        kind::add(&mut target, term);
    }
    let mut filter = versioning::filter_from(target, key, version, plan.effect, &plan.changes);
    crate::plan::guard::add_expr(&mut filter, position::terms(&plan.positions));
    rewrite::add(&mut filter, &plan.rewrites);
    if let Some(terms) = &plan.schema {
        terms.add_filter(&mut filter);
    }
    filter
}

/// The error of an update whose `filter` matched nothing, when the
/// document still exists (or its absence is unknown): a version error if
/// the save checked the version, a guard or an enum model's kind, else
/// not found.
pub(crate) fn no_match(
    collection: &str,
    id: Bson,
    version: Option<i64>,
    filter: BsonDocument,
    plan: &Plan,
) -> Error {
    if may_be_stale(plan) {
        Error::Version(Box::new(VersionError::new(
            id,
            version.unwrap_or(0),
            versioning::modified_paths(&plan.changes),
        )))
    } else {
        not_found(collection, filter)
    }
}

/// Whether a save of `plan` that matched nothing is refused as stale
/// ([`Error::Version`]) when its document still exists: it checked the
/// version, a guard, a rewrite or positional guard, an enum model's kind
/// or the schema version.
pub(crate) fn may_be_stale(plan: &Plan) -> bool {
    plan.effect.any()
        || crate::plan::guard::guarded(&plan.changes, plan.effect.check)
        || plan.checks_loaded()
}

/// Whether a save whose filter matched nothing may have failed only on a
/// guard or an enum model's kind (no version term): then a read of the
/// document tells a stale copy from a deleted document.
pub(crate) fn only_guarded(plan: &Plan) -> bool {
    !plan.effect.any()
        && (crate::plan::guard::guarded(&plan.changes, false) || plan.checks_loaded())
}

/// [`Error::NotFound`] for `filter` in `collection` (the model's, which
/// may be a runtime one: `Model::with_collection`).
pub(crate) fn not_found(collection: &str, filter: BsonDocument) -> Error {
    Error::NotFound(Box::new(NotFoundError {
        collection: collection.to_string(),
        filter,
    }))
}

/// The document a stored `Doc` is: `{_id: id}` plus its shard key, as
/// loaded.
pub(crate) fn target(id: &Bson, shard: Option<&BsonDocument>) -> BsonDocument {
    let mut target = crate::codec::new_document::document_of("_id", id.clone());
    for (key, value) in shard.into_iter().flatten() {
        target.insert(key.clone(), value.clone());
    }
    target
}
