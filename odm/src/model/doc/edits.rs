//! What a `Doc`'s value was reached in since its snapshot: a field
//! through `Doc::field_mut`, a sequence only appended to through
//! `Doc::push`, or the whole value through `DerefMut` (see `model::edit`).

use crate::codec::same::{bit, ALL_OF_OTHER};
use crate::schema::Schema;

/// What a `Doc`'s value may have changed in since its snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Edits {
    /// Only these fields (bits of `Schema::__odm_tracked`) were reached;
    /// `appended`: fields not reached but appended to, each with its
    /// length at the snapshot (its elements then are its first ones now).
    Fields {
        reached: u128,
        appended: Vec<(usize, usize)>,
    },
    /// The whole value was reached (`DerefMut`).
    Any,
}

/// What a save knows of the value without looking at it.
pub(crate) struct Known {
    /// The fields known unchanged.
    pub fields: u128,
    /// The fields reached: to compare with the copy.
    pub reached: u128,
    /// The fields only appended to, as `Unchanged::prefixes` says them:
    /// each with its first elements known the same as all of the
    /// snapshot's.
    pub prefixes: Vec<(usize, usize)>,
}

impl Edits {
    /// Nothing reached since the snapshot.
    pub const NONE: Edits = Edits::Fields {
        reached: 0,
        appended: Vec::new(),
    };

    /// The field of bit `index` was reached (`usize::MAX`, or any index
    /// past the bits: one a save does not know, so the whole value).
    pub fn reached(&mut self, index: usize) {
        match self {
            Edits::Fields { reached, appended } if index < 128 => {
                *reached |= 1 << index;
                appended.retain(|(i, _)| *i != index);
            }
            _ => *self = Edits::Any,
        }
    }

    /// The field of bit `index` of a `T`, of `len` elements, is about to
    /// be appended to. An append is known as such only for a field not
    /// reached otherwise since the snapshot (its `len` elements are then
    /// the snapshot's), whose elements are written one by one in order
    /// (`Schema::__odm_in_order`) and change only through `&mut`
    /// (`Schema::__odm_sealed`); any other field counts as reached.
    pub fn appends<T: Schema>(&mut self, index: usize, len: usize) {
        let appendable = bit(T::__odm_in_order() & T::__odm_sealed(), index);
        match self {
            Edits::Fields { reached, appended } if appendable => {
                if !bit(*reached, index) && !appended.iter().any(|(i, _)| *i == index) {
                    appended.push((index, len));
                }
            }
            _ => self.reached(index),
        }
    }

    /// What a save of a `T` knows without looking: the fields not reached
    /// nor appended to whose type changes only through `&mut`; the fields
    /// reached; and the first elements of those appended to. `None` when
    /// the whole value was reached.
    pub fn known<T: Schema>(&self) -> Option<Known> {
        let Edits::Fields { reached, appended } = self else {
            return None;
        };
        let mut prefixes = Vec::new();
        let mut touched = *reached;
        for &(i, n) in appended {
            touched |= 1 << i;
            // An empty snapshot array has no element to keep: the field
            // is written whole.
            if n > 0 {
                prefixes.push((i, n | ALL_OF_OTHER));
            }
        }
        Some(Known {
            fields: T::__odm_sealed() & !touched,
            reached: *reached,
            prefixes,
        })
    }
}
