//! Structural identity of values, for a save that skips the fields that
//! did not change without serializing them (`model::shadow`).
//!
//! [`Same::__odm_same`] is `true` only when both values are built of the same
//! parts, bit for bit: a deterministic serializer then writes the same
//! bytes for both, whatever serde attributes sit on the field. So it is
//! not `PartialEq`, which a type may define as it likes (by id only, say)
//! and which holds `0.0 == -0.0` (two different BSON doubles) and `NaN !=
//! NaN`. odm implements it for the types whose parts it knows; an
//! embedded struct gets it from `#[derive(Fields)]`, field by field. A type
//! without it (a `HashMap`, whose order is not its content; a `Cell`,
//! which changes behind `&`; a `Bson`) is serialized on every save, as
//! before.
//!
//! Generated code asks through [`Probe`], whose methods fall back to
//! "not known" for a type without the trait (autoref specialization: the
//! field types are concrete there).

use std::collections::BTreeMap;

use mongodb::bson::oid::ObjectId;

/// Values that are the same, part for part (see the module docs).
pub trait Same {
    /// `true` only if `self` and `other` are built of the same parts.
    fn __odm_same(&self, other: &Self) -> bool;

    /// Whether a value of this type changes only through `&mut`: no part
    /// of it can change behind `&` (a `Cell`, a `Mutex`). A field of such
    /// a type that no `&mut` reached since the snapshot is unchanged (see
    /// `Doc::field_mut`). `false` unless the impl says otherwise.
    fn __odm_sealed() -> bool {
        false
    }

    /// Makes `self` the same as `from`, part for part, keeping what it
    /// holds where that is already the same (a vector's unchanged
    /// elements, a string's buffer).
    fn __odm_sync_from(&mut self, from: &Self);

    /// [`SAME`] when `self` is the same as `other`; else, for a sequence,
    /// how many leading elements the two have the same (0 for any other
    /// value), with `ALL_OF_OTHER` added when they are all of `other`'s
    /// (`self` appended to it).
    fn __odm_compare(&self, other: &Self) -> usize {
        if self.__odm_same(other) {
            SAME
        } else {
            0
        }
    }

    /// [`sync_from`](Same::__odm_sync_from), when the first `at` elements of a
    /// sequence are the same already ([`compare`](Same::__odm_compare) said so).
    fn __odm_sync_from_at(&mut self, from: &Self, _at: usize) {
        self.__odm_sync_from(from);
    }

    /// [`same`](Same::__odm_same), when the first `at` elements of a sequence
    /// are known to be the same.
    fn __odm_same_from(&self, other: &Self, _at: usize) -> bool {
        self.__odm_same(other)
    }
}

/// What [`Same::__odm_compare`] answers for values that are the same.
pub const SAME: usize = usize::MAX;

/// Added by [`Same::__odm_compare`] to a count of leading elements that are all
/// of the other sequence's.
pub const ALL_OF_OTHER: usize = 1 << (usize::BITS - 2);

/// What a save knows of a value's top-level fields against its copy: bit
/// `i` of `fields`, field `i` (in `Schema::__odm_tracked` order) is the
/// same; each `(i, n)` of `prefixes`, field `i` is a sequence whose first
/// `n > 0` elements are (with `ALL_OF_OTHER` added when those are all
/// the snapshot's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unchanged {
    /// The fields that are the same.
    pub fields: u128,
    /// The sequences with the same first elements.
    pub prefixes: Vec<(usize, usize)>,
}

impl Unchanged {
    /// Nothing known.
    pub const NONE: Unchanged = Unchanged {
        fields: 0,
        prefixes: Vec::new(),
    };

    /// What is known of the fields of `mask` alone.
    pub(crate) fn within(mut self, mask: u128) -> Unchanged {
        self.fields &= mask;
        self.prefixes.retain(|&(i, _)| bit(mask, i));
        self
    }

    /// Whether anything is known.
    pub fn any(&self) -> bool {
        self.fields != 0 || !self.prefixes.is_empty()
    }

    /// How many first elements of field `i` are known the same (0: none).
    pub fn prefix(&self, i: usize) -> usize {
        self.prefix_of(i).0
    }

    /// [`prefix`](Unchanged::prefix), and whether those are all the
    /// elements the snapshot holds.
    pub fn prefix_of(&self, i: usize) -> (usize, bool) {
        self.prefixes
            .iter()
            .find(|(field, _)| *field == i)
            .map_or((0, false), |(_, n)| {
                (n & !ALL_OF_OTHER, n & ALL_OF_OTHER != 0)
            })
    }
}

/// Whether bit `i` of `mask` is set (a field past the 128 bits never is).
pub(crate) fn bit(mask: u128, i: usize) -> bool {
    i < 128 && mask & (1 << i) != 0
}

macro_rules! same_by_eq {
    ($($t:ty),*) => {$(
        impl Same for $t {
            #[inline]
            fn __odm_same(&self, other: &Self) -> bool {
                self == other
            }
            fn __odm_sealed() -> bool {
                true
            }
            #[inline]
            fn __odm_sync_from(&mut self, from: &Self) {
                self.clone_from(from);
            }
        }
    )*};
}

// Integers, booleans, characters, text and ids: equal values are the
// same bits.
same_by_eq!(bool, char, i8, i16, i32, i64, u8, u16, u32, u64, isize, usize, String, ObjectId);

/// `Copy` scalars compared by the bits they are written as: a float's
/// bits (`-0.0` is not `0.0`, and a NaN is itself), a date's milliseconds.
macro_rules! same_by_bits {
    ($($t:ty => $bits:ident),*) => {$(
        impl Same for $t {
            #[inline]
            fn __odm_same(&self, other: &Self) -> bool {
                self.$bits() == other.$bits()
            }
            fn __odm_sealed() -> bool {
                true
            }
            #[inline]
            fn __odm_sync_from(&mut self, from: &Self) {
                *self = *from;
            }
        }
    )*};
}

same_by_bits!(
    f64 => to_bits,
    f32 => to_bits,
    mongodb::bson::DateTime => timestamp_millis
);

/// A new value is made by `Clone`, which the containers below require: a
/// copy made so is checked with `same` before it is trusted.
impl<T: Same + Clone> Same for Option<T> {
    fn __odm_sealed() -> bool {
        T::__odm_sealed()
    }
    #[inline]
    fn __odm_same(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.__odm_same(b),
            (None, None) => true,
            _ => false,
        }
    }
    fn __odm_sync_from(&mut self, from: &Self) {
        match (self, from) {
            (Some(a), Some(b)) => a.__odm_sync_from(b),
            (this, from) => this.clone_from(from),
        }
    }
}

impl<T: Same> Same for Box<T> {
    fn __odm_sealed() -> bool {
        T::__odm_sealed()
    }
    #[inline]
    fn __odm_same(&self, other: &Self) -> bool {
        (**self).__odm_same(&**other)
    }
    #[inline]
    fn __odm_sync_from(&mut self, from: &Self) {
        (**self).__odm_sync_from(&**from);
    }
}

/// Whether two slices are the same, element for element.
fn same_slice<T: Same>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.__odm_same(b))
}

impl<T: Same + Clone> Same for Vec<T> {
    fn __odm_sealed() -> bool {
        T::__odm_sealed()
    }
    #[inline]
    fn __odm_same(&self, other: &Self) -> bool {
        same_slice(self, other)
    }
    /// The common elements synced in place; the rest dropped or cloned.
    fn __odm_sync_from(&mut self, from: &Self) {
        self.__odm_sync_from_at(from, 0);
    }
    fn __odm_compare(&self, other: &Self) -> usize {
        let n = self
            .iter()
            .zip(other)
            .take_while(|(a, b)| a.__odm_same(b))
            .count();
        match (n == self.len(), n == other.len()) {
            (true, true) => SAME,
            (false, true) if n > 0 => n | ALL_OF_OTHER,
            _ => n,
        }
    }
    fn __odm_sync_from_at(&mut self, from: &Self, at: usize) {
        self.truncate(from.len());
        let at = at.min(self.len());
        for (a, b) in self[at..].iter_mut().zip(&from[at..]) {
            a.__odm_sync_from(b);
        }
        let have = self.len();
        self.extend_from_slice(&from[have..]);
    }
    fn __odm_same_from(&self, other: &Self, at: usize) -> bool {
        self.len() == other.len() && at <= self.len() && same_slice(&self[at..], &other[at..])
    }
}

impl<T: Same, const N: usize> Same for [T; N] {
    fn __odm_sealed() -> bool {
        T::__odm_sealed()
    }
    #[inline]
    fn __odm_same(&self, other: &Self) -> bool {
        same_slice(self, other)
    }
    fn __odm_sync_from(&mut self, from: &Self) {
        for (a, b) in self.iter_mut().zip(from) {
            a.__odm_sync_from(b);
        }
    }
}

/// In key order, which is its serialization order.
impl<K: Same + Clone, V: Same + Clone> Same for BTreeMap<K, V> {
    fn __odm_sealed() -> bool {
        K::__odm_sealed() && V::__odm_sealed()
    }
    fn __odm_same(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other)
                .all(|((ka, va), (kb, vb))| ka.__odm_same(kb) && va.__odm_same(vb))
    }
    fn __odm_sync_from(&mut self, from: &Self) {
        self.clone_from(from);
    }
}

/// A field's value, asked through [`ViaSame`] when its type is [`Same`]
/// and through [`ViaNothing`] otherwise (and through [`ViaClone`] or
/// [`ViaNoClone`] for a copy of a whole value): call the methods on
/// `&Probe(&value)`.
pub struct Probe<'a, F: ?Sized>(pub &'a F);

/// The answers for a field type that is [`Same`].
pub trait ViaSame<F> {
    /// Whether the value is the same as `other`.
    fn odm_same(&self, other: &F) -> bool;
    /// Makes `into` the same as the value, whose first `at` elements it
    /// holds already; then whether it is the same.
    fn odm_sync(&self, into: &mut F, at: usize) -> bool;
    /// [`Same::__odm_compare`] of the value with `other`.
    fn odm_compare(&self, other: &F) -> usize;
    /// `true`: a save can compare the field (`Schema::__odm_compares`).
    fn odm_tracked(&self) -> bool;
}

impl<F: Same> ViaSame<F> for Probe<'_, F> {
    #[inline]
    fn odm_same(&self, other: &F) -> bool {
        self.0.__odm_same(other)
    }
    #[inline]
    fn odm_sync(&self, into: &mut F, at: usize) -> bool {
        into.__odm_sync_from_at(self.0, at);
        into.__odm_same_from(self.0, at)
    }
    #[inline]
    fn odm_compare(&self, other: &F) -> usize {
        self.0.__odm_compare(other)
    }
    #[inline]
    fn odm_tracked(&self) -> bool {
        true
    }
}

/// The answers for a field type that is not [`Same`]: never known.
pub trait ViaNothing<F> {
    /// Always `false`: the field is serialized.
    fn odm_same(&self, other: &F) -> bool;
    /// `false`: `into` is left as it is.
    fn odm_sync(&self, into: &mut F, at: usize) -> bool;
    /// 0: nothing known.
    fn odm_compare(&self, other: &F) -> usize;
    /// `false`: the field is serialized.
    fn odm_tracked(&self) -> bool;
}

impl<F> ViaNothing<F> for &Probe<'_, F> {
    #[inline]
    fn odm_same(&self, _other: &F) -> bool {
        false
    }
    #[inline]
    fn odm_sync(&self, _into: &mut F, _at: usize) -> bool {
        false
    }
    #[inline]
    fn odm_compare(&self, _other: &F) -> usize {
        0
    }
    #[inline]
    fn odm_tracked(&self) -> bool {
        false
    }
}

/// A copy of a whole value, when its type is `Clone`.
pub trait ViaClone<F> {
    /// A copy of the value.
    fn odm_clone(&self) -> Option<F>;
}

impl<F: Clone> ViaClone<F> for Probe<'_, F> {
    #[inline]
    fn odm_clone(&self) -> Option<F> {
        Some(self.0.clone())
    }
}

/// No copy of a value whose type is not `Clone`.
pub trait ViaNoClone<F> {
    /// `None`.
    fn odm_clone(&self) -> Option<F>;
}

impl<F> ViaNoClone<F> for &Probe<'_, F> {
    #[inline]
    fn odm_clone(&self) -> Option<F> {
        None
    }
}

#[cfg(test)]
mod tests {
    // `&Probe(..)` is how generated code asks: the borrow is what lets a
    // type without the trait fall back (autoref specialization).
    #![allow(clippy::float_cmp, clippy::needless_borrow)]
    use super::*;

    #[derive(Clone)]
    struct Opaque(i32);

    #[test]
    fn floats_are_compared_by_their_bits() {
        assert!(!0.0f64.__odm_same(&-0.0));
        assert!(f64::NAN.__odm_same(&f64::NAN));
        assert!(1.5f64.__odm_same(&1.5));
        assert!(!0.0f32.__odm_same(&-0.0));
    }

    #[test]
    fn strings_and_ids_compare_every_byte() {
        let text: String = (0..70).map(|i| (b'a' + i % 26) as char).collect();
        for n in 0..text.len() {
            let (a, mut b) = (text[..n + 1].to_string(), text[..n + 1].to_string());
            assert!(a.__odm_same(&b));
            for at in [0, n / 2, n] {
                b = a.clone();
                let mut bytes = b.into_bytes();
                bytes[at] ^= 1;
                b = String::from_utf8(bytes).unwrap();
                assert!(!a.__odm_same(&b), "{n} {at}");
            }
            assert!(!a.__odm_same(&text[..n].to_string()));
        }
        let id = ObjectId::new();
        for at in 0..12 {
            let mut bytes = id.bytes();
            bytes[at] ^= 1;
            assert!(!id.__odm_same(&ObjectId::from_bytes(bytes)));
        }
        assert!(id.__odm_same(&id.clone()));
    }

    #[test]
    fn containers_compare_their_parts_in_order() {
        assert!(vec![Some(1i32), None].__odm_same(&vec![Some(1), None]));
        assert!(!vec![1i32, 2].__odm_same(&vec![2, 1]));
        assert!(!vec![1i32].__odm_same(&vec![1, 1]));
        let a: BTreeMap<String, f64> = [("a".to_string(), 0.0)].into();
        let b: BTreeMap<String, f64> = [("a".to_string(), -0.0)].into();
        assert!(a.__odm_same(&a.clone()));
        assert!(!a.__odm_same(&b));
    }

    #[test]
    fn a_type_without_the_trait_is_never_the_same() {
        use super::{ViaClone as _, ViaNoClone as _, ViaNothing as _, ViaSame as _};
        let (a, b) = (Opaque(1), Opaque(1));
        assert!(!(&Probe(&a)).odm_same(&b));
        assert!((&Probe(&1i32)).odm_same(&1));
        assert!((&Probe(&1i32)).odm_tracked() && !(&Probe(&a)).odm_tracked());
        assert!((&Probe(&vec![1i32])).odm_tracked());
        assert!((&Probe(&Some("x".to_string()))).odm_tracked());
        let copy = (&Probe(&a)).odm_clone().expect("Opaque is Clone");
        assert_eq!(copy.0, 1);
        struct NoClone;
        assert!((&Probe(&NoClone)).odm_clone().is_none());
        let mut into = Opaque(2);
        assert!(!(&Probe(&a)).odm_sync(&mut into, 0));
        assert_eq!(into.0, 2);
    }

    #[test]
    fn sync_makes_the_same_value_in_place() {
        let from = vec![Some("a".to_string()), None, Some("c".to_string())];
        for start in [vec![], vec![None; 5], vec![Some("x".to_string())]] {
            let mut into = start;
            into.__odm_sync_from(&from);
            assert!(into.__odm_same(&from));
        }
        let mut into = vec!["long enough".to_string()];
        let buffer = into[0].as_ptr();
        into.__odm_sync_from(&vec!["short".to_string()]);
        assert_eq!(into, ["short"]);
        assert_eq!(into[0].as_ptr(), buffer, "the string's buffer is kept");
        assert_eq!(from.__odm_compare(&from.clone()), SAME);
        assert_eq!(from.__odm_compare(&from[..2].to_vec()), 2 | ALL_OF_OTHER);
        assert_eq!(from[..2].to_vec().__odm_compare(&from), 2);
        assert_eq!(vec![1i32, 2, 3].__odm_compare(&vec![1, 5, 3]), 1);
        let mut tail = vec![Some("a".to_string()), Some("b".to_string())];
        tail.__odm_sync_from_at(&from, 1);
        assert!(tail.__odm_same(&from) && tail.__odm_same_from(&from, 1));
        let mut pair = [0.0f64, 1.0];
        pair.__odm_sync_from(&[-0.0, 1.0]);
        assert!(pair.__odm_same(&[-0.0, 1.0]));
    }
}
