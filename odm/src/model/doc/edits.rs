//! What a `Doc`'s value was reached in since its snapshot: a field
//! through `Doc::field_mut`, or the whole value through `DerefMut` (see
//! `model::edit`).

use crate::schema::Schema;

/// What a `Doc`'s value may have changed in since its snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edits {
    /// Only these fields (bits of `Schema::__odm_tracked`) were reached.
    Fields(u128),
    /// The whole value was reached (`DerefMut`).
    Any,
}

impl Edits {
    /// Nothing reached since the snapshot.
    pub const NONE: Edits = Edits::Fields(0);

    /// The field of bit `index` was reached (`usize::MAX`, or any index
    /// past the bits: one a save does not know, so the whole value).
    pub fn reached(&mut self, index: usize) {
        *self = match *self {
            Edits::Fields(bits) if index < 128 => Edits::Fields(bits | 1 << index),
            _ => Edits::Any,
        };
    }

    /// The fields of `T` known unchanged without looking: those not
    /// reached whose type changes only through `&mut`; and the fields
    /// reached. `None` when the whole value was reached.
    pub fn known<T: Schema>(&self) -> Option<(u128, u128)> {
        let Edits::Fields(reached) = *self else {
            return None;
        };
        Some((T::__odm_sealed() & !reached, reached))
    }
}
