//! Mongoose's versioning, as pure functions: which version effect a set of
//! changes has (WHERE, INC, ALL), and the `(filter, update)` a save sends.

use mongodb::bson::{doc, Bson, Document};

use crate::codec::new_document::{document_of, new_document};
use crate::plan::diff::{Change, Op};
use crate::plan::paths::{covered_by_any, touches_any};
use crate::schema::meta::{Concurrency, Versioning};

/// The version effect of one save. Effects of several changes accumulate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Effect {
    /// The filter checks the loaded version.
    pub check: bool,
    /// The update increments the version.
    pub bump: bool,
}

impl Effect {
    pub const NONE: Effect = Effect {
        check: false,
        bump: false,
    };
    pub const WHERE: Effect = Effect {
        check: true,
        bump: false,
    };
    pub const INC: Effect = Effect {
        check: false,
        bump: true,
    };
    pub const ALL: Effect = Effect {
        check: true,
        bump: true,
    };

    fn or(self, other: Effect) -> Effect {
        Effect {
            check: self.check || other.check,
            bump: self.bump || other.bump,
        }
    }

    /// Any version effect at all.
    pub fn any(self) -> bool {
        self.check || self.bump
    }
}

/// Default-mode (array versioning) effect of one change, as Mongoose's
/// `operand` decides it; removing a document or an array also bumps (see
/// [`guard`](crate::plan::guard)).
fn change_effect(change: &Change) -> Effect {
    let dropped = if change.drops {
        Effect::INC
    } else {
        Effect::NONE
    };
    dropped.or(match change.op {
        Op::Whole => Effect::ALL,
        Op::Push | Op::PullAll | Op::PullIds if change.positional => Effect::ALL,
        Op::Push | Op::PullAll | Op::PullIds => Effect::INC,
        Op::Set if matches!(change.value, Bson::Array(_)) => Effect::ALL,
        Op::Set | Op::Unset if change.positional => Effect::WHERE,
        Op::Set | Op::Unset => Effect::NONE,
    })
}

/// Whether `optimistic_concurrency` applies to a save with these changes:
/// `include` when one touches a listed path (at, under or above it),
/// `exclude` unless every one is at or under a listed path.
pub(crate) fn concurrency_applies(mode: Concurrency, changes: &[Change]) -> bool {
    match mode {
        Concurrency::Off => false,
        Concurrency::All => true,
        Concurrency::Include(paths) => changes.iter().any(|c| touches_any(paths, &c.path)),
        Concurrency::Exclude(paths) => changes.iter().any(|c| !covered_by_any(paths, &c.path)),
    }
}

/// The version effect of a save with `changes`; `increment` is
/// [`Doc::increment`](crate::Doc::increment) having been called.
pub(crate) fn effect(rules: &Versioning, changes: &[Change], increment: bool) -> Effect {
    if rules.key.is_none() {
        return Effect::NONE;
    }
    if increment {
        return Effect::ALL;
    }
    if rules.concurrency != Concurrency::Off {
        // Any form of optimistic_concurrency turns array versioning off.
        return match (
            concurrency_applies(rules.concurrency, changes),
            changes.is_empty(),
        ) {
            (false, _) => Effect::NONE,
            (true, false) => Effect::ALL,
            (true, true) => Effect::WHERE,
        };
    }
    changes
        .iter()
        .filter(|c| !rules.skip.contains(&c.field()))
        .fold(Effect::NONE, |acc, c| acc.or(change_effect(c)))
}

/// The dotted paths a save writes, in update order, each once.
pub(crate) fn modified_paths(changes: &[Change]) -> Vec<String> {
    let mut seen = std::collections::HashSet::with_capacity(changes.len());
    changes
        .iter()
        .filter(|c| seen.insert(c.path.as_str()))
        .map(|c| c.path.clone())
        .collect()
}

/// An integer as an int32 while it fits (as Mongoose stores versions).
pub(crate) fn int(n: i64) -> Bson {
    match i32::try_from(n) {
        Ok(n) => Bson::Int32(n),
        Err(_) => Bson::Int64(n),
    }
}

/// `{_id, [shard key], [version], [guards]}`: the filter of a save of the
/// document stored as `target` (`{_id, shard key}`; see
/// [`guard`](crate::plan::guard) for what the guards require).
#[cfg(test)]
pub(crate) fn filter(
    target: &Document,
    key: Option<&str>,
    version: Option<i64>,
    effect: Effect,
    changes: &[Change],
) -> Document {
    filter_from(target.clone(), key, version, effect, changes)
}

/// The filter of a save (as `filter` makes it), made from `target` itself.
pub(crate) fn filter_from(
    mut filter: Document,
    key: Option<&str>,
    version: Option<i64>,
    effect: Effect,
    changes: &[Change],
) -> Document {
    if let (true, Some(key), Some(version)) = (effect.check, key, version) {
        filter.insert(key, int(version));
    }
    crate::plan::guard::add_guards(&mut filter, changes, effect.check);
    filter
}

/// The update document of a save; empty when nothing is to be written.
/// The changes keep their values (copied into the update).
pub(crate) fn update(changes: &[Change], key: Option<&str>, effect: Effect) -> Document {
    update_of(changes.iter().map(|c| (c, c.value.clone())), key, effect)
}

/// [`update`], moving into it the values nothing reads after the send:
/// a `$set`'s or an `$unset`'s, and a push's unless `pushes_read` (the
/// commit appends them to the stored form it keeps apart, see
/// [`rewrite::advance`](crate::plan::guard::rewrite::advance)). A pull's
/// values stay: a miss builds its removal guard again. A value moved
/// leaves `Bson::Null` in its change.
pub(crate) fn update_moving(
    changes: &mut [Change],
    key: Option<&str>,
    effect: Effect,
    pushes_read: bool,
) -> Document {
    let values = changes.iter_mut().map(|c| {
        let read_after = match c.op {
            Op::Set | Op::Whole | Op::Unset => false,
            Op::Push => pushes_read,
            Op::PullAll | Op::PullIds => true,
        };
        let value = match read_after {
            true => c.value.clone(),
            false => std::mem::take(&mut c.value),
        };
        let c: &Change = c;
        (c, value)
    });
    update_of(values, key, effect)
}

/// The update of `changes`, each with the value it writes.
fn update_of<'c>(
    changes: impl Iterator<Item = (&'c Change, Bson)>,
    key: Option<&str>,
    effect: Effect,
) -> Document {
    // One body per operator, in this order, made only when used.
    const OPS: [&str; 5] = ["$set", "$unset", "$push", "$pullAll", "$pull"];
    let mut bodies: [Option<Document>; 5] = Default::default();
    for (c, value) in changes {
        let (slot, value) = match c.op {
            Op::Set | Op::Whole => (0, value),
            Op::Unset => (1, value),
            Op::Push => (2, Bson::Document(document_of("$each", value))),
            Op::PullAll => (3, value),
            Op::PullIds => (4, Bson::Document(doc! { "_id": { "$in": value } })),
        };
        bodies[slot]
            .get_or_insert_with(new_document)
            .insert(c.path.clone(), value);
    }
    let mut update = new_document();
    for (op, body) in OPS.into_iter().zip(bodies) {
        if let Some(body) = body.filter(|b| !b.is_empty()) {
            update.insert(op, body);
        }
    }
    if let (true, Some(key)) = (effect.bump, key) {
        update.insert("$inc", document_of(key, 1));
    }
    update
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod update_tests;
