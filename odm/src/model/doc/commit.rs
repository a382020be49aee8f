//! What a `Doc` commits after a write that landed: the new snapshot
//! (the plan's whole value, or the snapshot patched in place), the
//! version, the schema version, the shard key of an insert, what the store
//! lacks, the rewrite guard's base and the copy of `model::shadow`.

use mongodb::bson::raw::RawDocument;
use mongodb::bson::Bson;

use super::edits::Edits;
use super::stored::{base_of, stored_form};
use super::Doc;
use crate::codec;
use crate::codec::offsets::Offsets;
use crate::model::Document;
use crate::plan::diff::{self, Missing};
use crate::plan::request::{shard, Plan};
use crate::plan::timestamps;
use crate::plan::tracked::Tracked;
use crate::plan::upgrade::SchemaState;

/// Whether the commit of a plan over `snapshot`, with no stored form
/// kept apart yet, keeps one: the stored order of a sub-document will
/// differ (the plan's `reordered`, or a key its changes `moved` add).
fn keeps_apart(snapshot: &RawDocument, reordered: bool, moved: &[diff::Change]) -> bool {
    reordered || crate::plan::guard::rewrite::adds_keys(snapshot, moved)
}

impl<T: Document> Doc<T> {
    /// Whether the commit of `plan` may read its pushed values (to append
    /// them to a stored form kept apart from the snapshot, see
    /// `rewrite::advance`); when not, the request moves them into the
    /// update instead of copying them.
    pub(crate) fn commit_reads_pushes(&self, plan: &Plan) -> bool {
        if !plan.changes.iter().any(|c| c.op == diff::Op::Push) {
            return false;
        }
        match &self.tracked {
            Tracked::Snapshot {
                base: None,
                snapshot,
                ..
            } => keeps_apart(snapshot, plan.reordered, &plan.changes),
            _ => true,
        }
    }

    /// Moves the snapshot forward after a successful write.
    pub(crate) fn commit(&mut self, id: Bson, plan: Plan, inserted: bool) {
        let meta = T::__odm_meta();
        let key = meta.versioning.key;
        let keys = meta.hidden();
        if inserted {
            // The value as written holds every shard key field it stores.
            self.shard = shard::values(meta.shard_key, plan.current.of_new()).unwrap_or_default();
            self.version = key.map(|_| 0);
        } else if plan.effect.bump && key.is_some() {
            self.version = Some(self.version.unwrap_or(0) + 1);
        }
        // The schema version as stored now; an upgrade is written.
        let written_version = match &plan.schema {
            _ if inserted => meta.schema.map(|s| i64::from(s.current)),
            Some(terms) => terms.write.map(i64::from).or(self.schema.stored),
            None => None,
        };
        self.schema = SchemaState {
            stored: written_version,
            upgrade: None,
        };
        // The fields written as the upgrade left them are already in the
        // tracked state (the upgraded document): only the others move it.
        let kept = plan.schema.as_ref().map_or(&[][..], |t| &t.kept[..]);
        let moved: std::borrow::Cow<'_, [diff::Change]> = if kept.is_empty() {
            std::borrow::Cow::Borrowed(&plan.changes)
        } else {
            let others = plan.changes.iter().filter(|c| !kept.contains(&c.path));
            std::borrow::Cow::Owned(others.cloned().collect())
        };
        let mut current = plan.current;
        let (mut missing, base, current, offsets) =
            match std::mem::replace(&mut self.tracked, Tracked::New) {
                Tracked::Snapshot {
                    missing,
                    base,
                    snapshot,
                    offsets,
                    ..
                } => {
                    // A patch moves the elements after each piece; a whole
                    // document has those its serializer noted, or is walked
                    // again when a patch needs them.
                    let offsets = current.take_offsets(offsets);
                    // A key the update adds to a sub-document lands at its end
                    // on the server, wherever the value serializes it, and keys
                    // the value now holds in another order keep their stored
                    // order: the stored form then differs from the new snapshot.
                    let keep = base.is_none() && keeps_apart(&snapshot, plan.reordered, &moved);
                    match keep {
                        true => {
                            let (current, snapshot) = current.into_whole_keeping(snapshot);
                            (missing, Some(snapshot), current, offsets)
                        }
                        false => (missing, base, current.into_whole(snapshot), offsets),
                    }
                }
                // Saved untouched (`increment()`, or an upgrade alone): the
                // document as read is what the store holds, the paths it lacks
                // included.
                Tracked::Clean { stored, .. } => {
                    let current = current.of_new().clone();
                    let (missing, base) = stored_form(&stored, keys, &current)
                        .unwrap_or_else(|_| (Missing::new(), base_of(&stored, keys, &current)));
                    (missing, base, current, Offsets::new())
                }
                _ => (
                    Missing::new(),
                    None,
                    current.of_new().clone(),
                    Offsets::new(),
                ),
            };
        diff::settle_missing(&mut missing, &moved);
        // The fields the copy holds as the new snapshot does: those the
        // save found unchanged, but the ones a stamp changed since.
        let mut known = plan.unchanged;
        let (snapshot, offsets) = match plan.stamp {
            Some(stamp) => {
                stamp.apply(&mut self.value);
                match timestamps::stamped_as_planned(&self.value, &current, &offsets) {
                    // The plan's value holds the stamps as the value does.
                    Some(stamped) => {
                        known = known.within(!stamped);
                        (current, offsets)
                    }
                    None => {
                        known = crate::codec::same::Unchanged::NONE;
                        let stamped = codec::to_raw(&self.value).unwrap_or(current);
                        (stamped, Offsets::new())
                    }
                }
            }
            None => (current, offsets),
        };
        self.shadow.saved(&self.value, &known);
        let base =
            base.and_then(|base| crate::plan::guard::rewrite::advance(&base, &moved, &snapshot));
        self.tracked = Tracked::Snapshot {
            id,
            snapshot,
            offsets,
            missing,
            base,
        };
        self.edits = Edits::NONE;
        self.increment = false;
        self.in_doubt = false;
    }
}
