//! `#[odm(timestamps)]`: `created_at` written once on insert, `updated_at`
//! on every write that changes the document.
//!
//! Saves stamp the serialized value (the plan), never the value itself: the
//! value takes the new times only when the write succeeds, so a failed save
//! leaves the `Doc` untouched. `upsert` and `claim` add the fields to the
//! update document. The time is the application's clock, or the server's
//! with `timestamps(server_clock)` (see `server_clock`).

use crate::bson_release;
use mongodb::bson::raw::{RawBson, RawDocumentBuf};
use mongodb::bson::{Bson, DateTime, Document as BsonDocument};

use crate::error::Result;
use crate::plan::diff::{raw_error, Change, Op};
use crate::plan::filter_terms::fixed_by;
use crate::plan::request::Plan;
use crate::plan::update_ops;
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
}

/// Stamps a save plan: on insert both fields, on an update that changes
/// something `updated_at` (replacing any change the caller made to it).
/// Nothing for a save that writes nothing, or without `timestamps`.
pub(crate) fn stamp_plan<T: Schema>(
    is_new: bool,
    current: &mut RawDocumentBuf,
    changes: &mut Vec<Change>,
) -> Result<Option<Stamp>> {
    let Some(ts) = T::__odm_meta().timestamps else {
        return Ok(None);
    };
    if !is_new && changes.is_empty() {
        return Ok(None);
    }
    let now = DateTime::now();
    let created = is_new.then_some(now);
    let mut fields = vec![(ts.updated_at, now)];
    if is_new {
        fields.push((ts.created_at, now));
    }
    *current = with_fields(current, &fields)?;
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
    Ok(Some(Stamp {
        created,
        updated: now,
    }))
}

/// Moves the stamps of a save `plan` to `at` (the server's time): in the
/// serialized value, the `updated_at` change and the stamp put into the
/// value on success.
pub(crate) fn restamp<T: Schema>(plan: &mut Plan, at: DateTime) -> Result<()> {
    let (Some(ts), Some(stamp)) = (T::__odm_meta().timestamps, plan.stamp.as_mut()) else {
        return Ok(());
    };
    let mut fields = vec![(ts.updated_at, at)];
    if stamp.created.is_some() {
        stamp.created = Some(at);
        fields.push((ts.created_at, at));
    }
    stamp.updated = at;
    // A model with timestamps plans its saves whole (`request::plan`).
    let whole = plan.current.make_whole(None);
    *whole = with_fields(whole, &fields)?;
    for change in &mut plan.changes {
        if change.path == ts.updated_at {
            change.value = Bson::DateTime(at);
        }
    }
    Ok(())
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
