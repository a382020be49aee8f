//! Structural identity of values, for a save that skips the fields that
//! did not change without serializing them (`model::shadow`).
//!
//! [`Same::same`] is `true` only when both values are built of the same
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
    fn same(&self, other: &Self) -> bool;
}

macro_rules! same_by_eq {
    ($($t:ty),*) => {$(
        impl Same for $t {
            #[inline]
            fn same(&self, other: &Self) -> bool {
                self == other
            }
        }
    )*};
}

// Integers, booleans, characters and text: equal values are the same bits.
same_by_eq!(bool, char, i8, i16, i32, i64, u8, u16, u32, u64, isize, usize, String, ObjectId);

impl Same for mongodb::bson::DateTime {
    #[inline]
    fn same(&self, other: &Self) -> bool {
        self.timestamp_millis() == other.timestamp_millis()
    }
}

impl Same for f64 {
    /// The same bits: `-0.0` is not `0.0`, and a NaN is itself.
    #[inline]
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Same for f32 {
    #[inline]
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl<T: Same> Same for Option<T> {
    #[inline]
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.same(b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl<T: Same + ?Sized> Same for Box<T> {
    #[inline]
    fn same(&self, other: &Self) -> bool {
        (**self).same(&**other)
    }
}

impl<T: Same> Same for [T] {
    fn same(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.same(b))
    }
}

impl<T: Same> Same for Vec<T> {
    #[inline]
    fn same(&self, other: &Self) -> bool {
        self[..].same(&other[..])
    }
}

impl<T: Same, const N: usize> Same for [T; N] {
    #[inline]
    fn same(&self, other: &Self) -> bool {
        self[..].same(&other[..])
    }
}

/// In key order, which is its serialization order.
impl<K: Same, V: Same> Same for BTreeMap<K, V> {
    fn same(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other)
                .all(|((ka, va), (kb, vb))| ka.same(kb) && va.same(vb))
    }
}

/// A field's value, asked through [`ViaSame`] when its type is [`Same`]
/// (and `Clone`, for [`ViaSame::clone_into`]) and through [`ViaNothing`]
/// otherwise: call the methods on `&Probe(&value)`.
pub struct Probe<'a, F: ?Sized>(pub &'a F);

/// The answers for a field type that is [`Same`].
pub trait ViaSame<F> {
    /// Whether the value is the same as `other`.
    fn odm_same(&self, other: &F) -> bool;
}

impl<F: Same> ViaSame<F> for Probe<'_, F> {
    #[inline]
    fn odm_same(&self, other: &F) -> bool {
        self.0.same(other)
    }
}

/// The answers for a field type that is not [`Same`]: never known.
pub trait ViaNothing<F> {
    /// Always `false`: the field is serialized.
    fn odm_same(&self, other: &F) -> bool;
}

impl<F> ViaNothing<F> for &Probe<'_, F> {
    #[inline]
    fn odm_same(&self, _other: &F) -> bool {
        false
    }
}

/// Copies of a value, when its type is `Clone`.
pub trait ViaClone<F> {
    /// A copy of the value.
    fn odm_clone(&self) -> Option<F>;
    /// Makes `into` a copy of the value; `true` when done.
    fn odm_clone_into(&self, into: &mut F) -> bool;
}

impl<F: Clone> ViaClone<F> for Probe<'_, F> {
    #[inline]
    fn odm_clone(&self) -> Option<F> {
        Some(self.0.clone())
    }
    #[inline]
    fn odm_clone_into(&self, into: &mut F) -> bool {
        into.clone_from(self.0);
        true
    }
}

/// No copies of a value whose type is not `Clone`.
pub trait ViaNoClone<F> {
    /// `None`.
    fn odm_clone(&self) -> Option<F>;
    /// `false`: `into` is left as it is.
    fn odm_clone_into(&self, into: &mut F) -> bool;
}

impl<F> ViaNoClone<F> for &Probe<'_, F> {
    #[inline]
    fn odm_clone(&self) -> Option<F> {
        None
    }
    #[inline]
    fn odm_clone_into(&self, _into: &mut F) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::float_cmp)]
    use super::*;

    #[derive(Clone)]
    struct Opaque(i32);

    #[test]
    fn floats_are_compared_by_their_bits() {
        assert!(!0.0f64.same(&-0.0));
        assert!(f64::NAN.same(&f64::NAN));
        assert!(1.5f64.same(&1.5));
        assert!(!0.0f32.same(&-0.0));
    }

    #[test]
    fn containers_compare_their_parts_in_order() {
        assert!(vec![Some(1i32), None].same(&vec![Some(1), None]));
        assert!(!vec![1i32, 2].same(&vec![2, 1]));
        assert!(!vec![1i32].same(&vec![1, 1]));
        let a: BTreeMap<String, f64> = [("a".to_string(), 0.0)].into();
        let b: BTreeMap<String, f64> = [("a".to_string(), -0.0)].into();
        assert!(a.same(&a.clone()));
        assert!(!a.same(&b));
    }

    #[test]
    fn a_type_without_the_trait_is_never_the_same() {
        use super::{ViaClone as _, ViaNoClone as _, ViaNothing as _, ViaSame as _};
        let (a, b) = (Opaque(1), Opaque(1));
        assert!(!(&Probe(&a)).odm_same(&b));
        assert!((&Probe(&1i32)).odm_same(&1));
        let copy = (&Probe(&a)).odm_clone().expect("Opaque is Clone");
        assert_eq!(copy.0, 1);
        struct NoClone;
        assert!((&Probe(&NoClone)).odm_clone().is_none());
        let mut into = NoClone;
        assert!(!(&Probe(&NoClone)).odm_clone_into(&mut into));
    }
}
