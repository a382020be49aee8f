//! A copy of a `Doc`'s value as its snapshot holds it, so a save finds the
//! top-level fields that did not change by comparing values in memory
//! (`codec::same`) and copies their bytes from the snapshot instead of
//! serializing them again (`codec::rawser::splice`). What the save sends
//! is unchanged: the bytes are the same either way.
//!
//! The copy pays off for a `Doc` saved again and again (a worker's
//! document, a batch saved each round); a `Doc` loaded, changed and saved
//! once would only pay for it. So it is taken after the second save of a
//! `Doc` since it was read (or inserted), when the value is what the new
//! snapshot holds; until then every save serializes the whole value, as it
//! always did.
//!
//! The invariant: for each bit of `valid`, the copy's field is the same,
//! part for part, as the value was when the snapshot was serialized, so it
//! serializes to the snapshot's element of that field. It is kept by
//! taking the copy right after a save (the value is then the snapshot),
//! by checking each copied field against the value (a `Clone` that does
//! not copy every part leaves its field out), and by copying, after each
//! later save, the fields the save wrote.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::codec::same::Unchanged;
use crate::schema::Schema;

/// Take the copy after the first save instead of the second (see
/// [`copy_after_first_save`]).
static AFTER_FIRST: AtomicBool = AtomicBool::new(false);

/// Makes every `Doc` of the process take its copy after its first save
/// since it was read instead of its second, so a short history of saves
/// runs through the comparison more often: for the suite's random
/// histories. Not public API.
#[doc(hidden)]
pub fn copy_after_first_save() {
    AFTER_FIRST.store(true, Ordering::Relaxed);
}

/// The copy, if the model has one.
pub(crate) enum Shadow<T> {
    /// Not saved since read (or inserted): no copy.
    None,
    /// Saved once since read: the next save takes the copy.
    Next,
    /// None taken, and none will be until the `Doc` is read again: the
    /// model compares no field (not `Clone`, or no field's type can tell).
    Off,
    /// The copy, and the fields it holds as the snapshot does.
    On { copy: Box<T>, valid: u128 },
}

impl<T: Schema> Shadow<T> {
    /// The copy of `value`, whose serialization is the snapshot just taken.
    fn of(value: &T) -> Self {
        if !value.__odm_compares() {
            return Shadow::Off;
        }
        let Some(copy) = value.__odm_shadow() else {
            return Shadow::Off;
        };
        match same_fields(value, &copy) {
            0 => Shadow::Off,
            valid => Shadow::On { copy, valid },
        }
    }

    /// What `value` holds as the snapshot does, of the fields `only`:
    /// whole fields, and the first elements of sequences.
    pub(crate) fn unchanged(&self, value: &T, only: u128) -> Unchanged {
        let Shadow::On { copy, valid } = self else {
            return Unchanged::NONE;
        };
        let mut out = Unchanged::NONE;
        value.__odm_unchanged(copy, only & valid, &mut out);
        out.within(*valid)
    }

    /// After a save whose snapshot is `value` serialized: `known` is what
    /// the copy already holds as `value` does (what the save found
    /// unchanged); the rest is copied. The second save since the `Doc` was
    /// read takes the copy.
    pub(crate) fn saved(&mut self, value: &T, known: &Unchanged) {
        match self {
            Shadow::On { copy, valid } => {
                // Only what the copy holds as the snapshot does is known
                // the same in it (a save that knew fields unchanged, or a
                // sequence's first elements, from `Doc::field_mut` or
                // `Doc::push` did not ask the copy).
                let known = known.clone().within(*valid);
                *valid = value.__odm_reshadow(copy, &known);
            }
            Shadow::None if AFTER_FIRST.load(Ordering::Relaxed) => *self = Shadow::of(value),
            Shadow::None => *self = Shadow::Next,
            Shadow::Next => *self = Shadow::of(value),
            Shadow::Off => {}
        }
    }
}

impl<T: Schema + Clone> Shadow<T> {
    /// A copy of the shadow, for a copy of its `Doc`: each field of the
    /// new copy is checked against this one, as a first copy is.
    pub(crate) fn duplicate(&self) -> Self {
        match self {
            Shadow::None => Shadow::None,
            Shadow::Next => Shadow::Next,
            Shadow::Off => Shadow::Off,
            Shadow::On { copy, valid } => {
                let again: Box<T> = copy.clone();
                let valid = same_fields(&**copy, &*again) & valid;
                Shadow::On { copy: again, valid }
            }
        }
    }
}

/// The fields in which `a` and `b` are the same.
fn same_fields<T: Schema>(a: &T, b: &T) -> u128 {
    let mut out = Unchanged::NONE;
    a.__odm_unchanged(b, u128::MAX, &mut out);
    out.fields
}
