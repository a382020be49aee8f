//! Mongoose's versioning, as pure functions: which version effect a set of
//! changes has (WHERE, INC, ALL), and the `(filter, update)` a save sends.

use mongodb::bson::{doc, Bson, Document};

use crate::diff::{Change, Op};
use crate::meta::{Concurrency, Versioning};

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
/// `operand` decides it.
fn change_effect(change: &Change) -> Effect {
    match change.op {
        Op::Push | Op::PullAll | Op::PullIds if change.positional => Effect::ALL,
        Op::Push | Op::PullAll | Op::PullIds => Effect::INC,
        Op::Set if matches!(change.value, Bson::Array(_)) => Effect::ALL,
        Op::Set | Op::Unset if change.positional => Effect::WHERE,
        Op::Set | Op::Unset => Effect::NONE,
    }
}

/// Whether `optimistic_concurrency` applies to a save with these changes.
fn concurrency_applies(mode: Concurrency, changes: &[Change]) -> bool {
    match mode {
        Concurrency::Off => false,
        Concurrency::All => true,
        Concurrency::Include(fields) => changes.iter().any(|c| fields.contains(&c.field())),
        Concurrency::Exclude(fields) => changes.iter().any(|c| !fields.contains(&c.field())),
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
    let mut paths: Vec<String> = Vec::with_capacity(changes.len());
    for c in changes {
        if !paths.contains(&c.path) {
            paths.push(c.path.clone());
        }
    }
    paths
}

/// `{_id, [version]}`: the filter of a save.
pub(crate) fn filter(
    id: &Bson,
    key: Option<&str>,
    version: Option<i64>,
    effect: Effect,
) -> Document {
    let mut filter = doc! { "_id": id.clone() };
    if let (true, Some(key), Some(version)) = (effect.check, key, version) {
        filter.insert(key, version);
    }
    filter
}

/// The update document of a save; empty when nothing is to be written.
pub(crate) fn update(changes: &[Change], key: Option<&str>, effect: Effect) -> Document {
    let mut set = Document::new();
    let mut unset = Document::new();
    let mut push = Document::new();
    let mut pull_all = Document::new();
    let mut pull = Document::new();
    for c in changes {
        let value = c.value.clone();
        match c.op {
            Op::Set => set.insert(c.path.clone(), value),
            Op::Unset => unset.insert(c.path.clone(), value),
            Op::Push => push.insert(c.path.clone(), doc! { "$each": value }),
            Op::PullAll => pull_all.insert(c.path.clone(), value),
            Op::PullIds => pull.insert(c.path.clone(), doc! { "_id": { "$in": value } }),
        };
    }
    let mut update = Document::new();
    for (op, body) in [
        ("$set", set),
        ("$unset", unset),
        ("$push", push),
        ("$pullAll", pull_all),
        ("$pull", pull),
    ] {
        if !body.is_empty() {
            update.insert(op, body);
        }
    }
    if let (true, Some(key)) = (effect.bump, key) {
        update.insert("$inc", doc! { key: 1 });
    }
    update
}

#[cfg(test)]
mod tests;
