//! `#[odm(timestamps)]`: `created_at` written once on insert, `updated_at`
//! on every write that changes the document.
//!
//! Saves stamp the serialized value (the plan), never the value itself: the
//! value takes the new times only when the write succeeds, so a failed save
//! leaves the `Doc` untouched. A save planned as a patch of the snapshot
//! stays one: the stamp is one more field of the patch. `upsert` and
//! `claim` add the fields to the update document. The time is the
//! application's clock, or the server's with `timestamps(server_clock)`
//! (see `server_clock`).

use std::ops::Range;

use crate::bson_release;
use mongodb::bson::raw::{RawBson, RawDocument, RawDocumentBuf};
use mongodb::bson::spec::ElementType;
use mongodb::bson::{Bson, DateTime, Document as BsonDocument};

use crate::codec::offsets::Offsets;
use crate::codec::rawser::patch::Patch;
use crate::codec::rawser::pick;
use crate::codec::scan::Walk;
use crate::error::Result;
use crate::plan::current::Current;
use crate::plan::diff::{raw_error, Change, Op};
use crate::plan::filter_terms::fixed_by;
use crate::plan::request::Plan;
use crate::plan::tracked::Tracked;
use crate::plan::update_ops;
use crate::schema::meta::Timestamps;
use crate::schema::Schema;

/// The type of a `timestamps` field: `DateTime` or `Option<DateTime>`, and
/// with the features `chrono` / `time` their `DateTime<Utc>` /
/// `OffsetDateTime` (see `odm::time`).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a `timestamps` field must be `odm::bson::DateTime`, `chrono::DateTime<Utc>` (feature `chrono`), `time::OffsetDateTime` (feature `time`) or an `Option` of one, not `{Self}`",
    label = "this field is written by `#[odm(timestamps)]`"
)]
pub trait TimestampField {
    /// Stores `at` in the field.
    fn __odm_put(&mut self, at: DateTime);
}

impl TimestampField for DateTime {
    fn __odm_put(&mut self, at: DateTime) {
        *self = at;
    }
}

impl TimestampField for Option<DateTime> {
    fn __odm_put(&mut self, at: DateTime) {
        *self = Some(at);
    }
}

/// The times a save wrote; put into the value when the save succeeds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamp {
    pub created: Option<DateTime>,
    pub updated: DateTime,
}

impl Stamp {
    /// Writes the times into `value`.
    pub(crate) fn apply<T: Schema>(self, value: &mut T) {
        value.__odm_stamp(self.created, self.updated);
    }

    /// The top-level fields of `ts` this stamp writes, with their times.
    fn fields(self, ts: Timestamps) -> Vec<(&'static str, DateTime)> {
        let mut fields = vec![(ts.updated_at, self.updated)];
        if let Some(created) = self.created {
            fields.push((ts.created_at, created));
        }
        fields
    }
}

/// Stamps a save plan: on insert both fields, on an update that changes
/// something `updated_at` (replacing any change the caller made to it).
/// Nothing for a save that writes nothing, or without `timestamps`.
/// `tracked` is the state the plan was made from (see [`write_times`]).
pub(crate) fn stamp_plan<T: Schema>(
    is_new: bool,
    current: &mut Current,
    tracked: &Tracked,
    changes: &mut Vec<Change>,
) -> Result<Option<Stamp>> {
    let Some(ts) = T::__odm_meta().timestamps else {
        return Ok(None);
    };
    if !is_new && changes.is_empty() {
        return Ok(None);
    }
    let now = DateTime::now();
    let stamp = Stamp {
        created: is_new.then_some(now),
        updated: now,
    };
    write_times(current, tracked, &stamp.fields(ts))?;
    if !is_new {
        changes.retain(|c| !update_ops::same_or_under(&c.path, ts.updated_at));
        changes.push(Change {
            op: Op::Set,
            path: ts.updated_at.to_string(),
            value: Bson::DateTime(now),
            positional: false,
            counts: Vec::new(),
            drops: false,
        });
    }
    Ok(Some(stamp))
}

/// Moves the stamps of a save `plan` (made from `tracked`) to `at` (the
/// server's time): in the serialized value, the `updated_at` change and
/// the stamp put into the value on success.
pub(crate) fn restamp<T: Schema>(plan: &mut Plan, tracked: &Tracked, at: DateTime) -> Result<()> {
    let (Some(ts), Some(stamp)) = (T::__odm_meta().timestamps, plan.stamp.as_mut()) else {
        return Ok(());
    };
    stamp.created = stamp.created.map(|_| at);
    stamp.updated = at;
    write_times(&mut plan.current, tracked, &stamp.fields(ts))?;
    for change in &mut plan.changes {
        if change.path == ts.updated_at {
            change.value = Bson::DateTime(at);
        }
    }
    Ok(())
}

/// Writes the top-level `fields` into `current` as dates. A patch of the
/// snapshot `tracked` holds (the document the plan was made from) takes
/// each as one more piece, in place of the snapshot's element (found
/// through its offsets, when known): the save stays as cheap as one
/// without `timestamps`, whatever the document's size. A whole document
/// whose fields are dates already takes the times in place (its element
/// offsets hold). Else (a field the document lacks, or holds as `null`)
/// the whole document is written again with them.
fn write_times(
    current: &mut Current,
    tracked: &Tracked,
    fields: &[(&str, DateTime)],
) -> Result<()> {
    let (snapshot, known) = match tracked {
        Tracked::Snapshot {
            snapshot, offsets, ..
        } => (Some(&**snapshot), offsets.known()),
        _ => (None, None),
    };
    let done = match (&mut *current, snapshot) {
        (Current::Patch(patch), Some(snapshot)) => {
            put_in_patch(patch, (snapshot.as_bytes(), known), fields)?
        }
        (Current::Whole(doc, offsets), _) => put_in_place(doc, offsets.known(), fields)?,
        (Current::Patch(_), None) => false,
    };
    if !done {
        let whole = current.make_whole(snapshot);
        *whole = with_fields(whole, fields)?;
    }
    Ok(())
}

/// [`write_times`] of a patch of `snapshot`: `false` (nothing done) when
/// the snapshot lacks a field.
fn put_in_patch(
    patch: &mut Patch,
    snapshot: Bytes<'_>,
    fields: &[(&str, DateTime)],
) -> Result<bool> {
    let mut found = Vec::with_capacity(fields.len());
    for (name, at) in fields {
        match element(snapshot, name)? {
            Some((old, _)) => found.push((old, date_element(name, *at))),
            None => return Ok(false),
        }
    }
    for (old, new) in found {
        patch.put(old, &new);
    }
    Ok(true)
}

/// [`write_times`] of a whole document (`known` its element offsets), in
/// place: `false` (nothing done) unless every field is a date in it.
fn put_in_place(
    doc: &mut RawDocumentBuf,
    known: Option<&[u32]>,
    fields: &[(&str, DateTime)],
) -> Result<bool> {
    let mut found = Vec::with_capacity(fields.len());
    for (name, at) in fields {
        match element((doc.as_bytes(), known), name)? {
            Some((range, true)) => found.push((range.end - 8, *at)),
            _ => return Ok(false),
        }
    }
    let mut bytes = std::mem::replace(doc, RawDocumentBuf::new()).into_bytes();
    for (at, time) in found {
        bytes[at..at + 8].copy_from_slice(&time.timestamp_millis().to_le_bytes());
    }
    *doc = RawDocumentBuf::from_bytes(bytes).map_err(raw_error)?;
    Ok(true)
}

/// `raw` with the top-level `fields` set to the given times (in place when
/// present, else appended).
fn with_fields(raw: &RawDocumentBuf, fields: &[(&str, DateTime)]) -> Result<RawDocumentBuf> {
    let mut out = RawDocumentBuf::new();
    let mut written = vec![false; fields.len()];
    for element in raw.iter() {
        let (key, value) = element.map_err(raw_error)?;
        let key = bson_release::key_str(key);
        match fields.iter().position(|(name, _)| *name == key) {
            Some(i) => {
                bson_release::append(&mut out, key, RawBson::DateTime(fields[i].1));
                written[i] = true;
            }
            None => bson_release::append(&mut out, key, bson_release::to_raw_bson(value)),
        }
    }
    for (i, (name, at)) in fields.iter().enumerate() {
        if !written[i] {
            bson_release::append(&mut out, name, RawBson::DateTime(*at));
        }
    }
    Ok(out)
}

/// A document's bytes, and where its elements start (then its end), when
/// known (`codec::offsets`).
type Bytes<'a> = (&'a [u8], Option<&'a [u32]>);

/// Where the top-level element `key` of `doc` is (type, key and value),
/// and whether it is a date: its keys compared at the known offsets, else
/// found by a walk.
fn element((doc, known): Bytes<'_>, key: &str) -> Result<Option<(Range<usize>, bool)>> {
    if let Some(starts) = known {
        let key = key.as_bytes();
        for pair in starts.windows(2) {
            let (start, end) = (pair[0] as usize, pair[1] as usize);
            // The key's NUL where this key would end, then the key: most
            // elements fail on the first byte looked at.
            let name = start + 1..start + 1 + key.len();
            if doc.get(name.end) == Some(&0) && doc.get(name) == Some(key) {
                let date = doc[start] == ElementType::DateTime as u8;
                return Ok(Some((start..end, date)));
            }
        }
        return Ok(None);
    }
    let mut walk = Walk::new(doc)?;
    loop {
        let start = walk.at();
        match walk.next_elem()? {
            Some(elem) if elem.key == key.as_bytes() => {
                let date = elem.tag == ElementType::DateTime as u8;
                return Ok(Some((start..walk.at(), date)));
            }
            Some(_) => {}
            None => return Ok(None),
        }
    }
}

/// The BSON element `key: at`.
fn date_element(key: &str, at: DateTime) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len() + 10);
    out.push(ElementType::DateTime as u8);
    out.extend_from_slice(key.as_bytes());
    out.push(0);
    out.extend_from_slice(&at.timestamp_millis().to_le_bytes());
    out
}

/// After a save of a model with `timestamps` landed and its stamp was put
/// into `value`: whether `value` now serializes as `snapshot` (the plan's
/// value with the stamps written in, `offsets` its element offsets, when
/// known) holds it. Its stamp fields are written again and compared with
/// the snapshot's elements; the others are known to (the plan serialized
/// them, or found them unchanged). Then `snapshot` is the new snapshot as
/// it is, and the answer is the stamp fields (bit `i`: field `i` in
/// `__odm_tracked` order), which the copy of the value no longer holds.
/// `None` when a field's type serializes the stamp otherwise, or the
/// value cannot be checked so: the value is serialized whole again.
pub(crate) fn stamped_as_planned<T: Schema>(
    value: &T,
    snapshot: &RawDocument,
    offsets: &Offsets,
) -> Option<u128> {
    let ts = T::__odm_meta().timestamps?;
    let keys = [ts.updated_at, ts.created_at];
    let names = T::__odm_tracked();
    let mut stamped = 0u128;
    for key in keys {
        let i = names.iter().position(|n| *n == key).filter(|&i| i < 128)?;
        stamped |= 1 << i;
    }
    let picked = pick::pick(value, &keys)?;
    let doc = (snapshot.as_bytes(), offsets.known());
    for (i, key) in keys.iter().enumerate() {
        let held = element(doc, key).ok()?.map(|(at, _)| &doc.0[at]);
        if picked.element(i) != held {
            return None;
        }
    }
    Some(stamped)
}

/// Adds `$set: {updated_at: now}` (and, for an upsert of `filter`,
/// `$setOnInsert: {created_at: now}`) to an update, unless the update
/// already writes the field, or the upsert's filter fixes `created_at`
/// ([`fixed_by`]). The same `now` for both, so an inserted document has
/// equal times.
pub(crate) fn stamp_update<T: Schema>(
    update: &mut BsonDocument,
    upsert: Option<&BsonDocument>,
    now: DateTime,
) {
    let Some(ts) = T::__odm_meta().timestamps else {
        return;
    };
    if !update_ops::touches(update, ts.updated_at) {
        update_ops::add(update, "$set", ts.updated_at, Bson::DateTime(now));
    }
    let Some(filter) = upsert else {
        return;
    };
    if !update_ops::touches(update, ts.created_at) && !fixed_by(filter, ts.created_at) {
        update_ops::add(update, "$setOnInsert", ts.created_at, Bson::DateTime(now));
    }
}

#[cfg(test)]
#[path = "timestamps_tests.rs"]
mod tests;
