//! Whether a generic type is one known type, for generic types that need
//! not be `'static` (serde's `T: ?Sized` values, seeds that borrow the
//! input). The codecs use it to write and read `ObjectId` and `DateTime`
//! straight from and to their bytes: their own `Serialize` formats the id
//! as hex and the date as a decimal string, and their `Deserialize` parses
//! those back through an extended-JSON map, which costs more than all the
//! rest of a small document.
//!
//! With `text`, one of the two modules of odm with unsafe code: each
//! block says why it is sound.

#![allow(unsafe_code)]

use std::any::TypeId;
use std::marker::PhantomData;

/// Gives the `TypeId` of the type a `PhantomData` names.
trait Named {
    fn named(&self) -> TypeId
    where
        Self: 'static;
}

impl<T: ?Sized> Named for PhantomData<T> {
    fn named(&self) -> TypeId
    where
        Self: 'static,
    {
        TypeId::of::<T>()
    }
}

/// The `TypeId` of `T`, its lifetimes (if any) taken as `'static`.
fn id_of<T: ?Sized>() -> TypeId {
    let named: &dyn Named = &PhantomData::<T>;
    // SAFETY: lifetimes are erased before code is generated, so the
    // vtable behind `named` is the one of `PhantomData<T>` whatever its
    // lifetimes, and `named()` reads nothing but returns a constant. The
    // `'static` is only needed to call it, and nothing borrowed escapes.
    let named: &(dyn Named + 'static) =
        unsafe { std::mem::transmute::<&dyn Named, &(dyn Named + 'static)>(named) };
    named.named()
}

/// Whether `T` is `U`, a type without lifetime parameters (so no other
/// type has its `TypeId` once lifetimes are erased).
pub(crate) fn is<T: ?Sized, U: 'static>() -> bool {
    id_of::<T>() == TypeId::of::<U>()
}

/// `value` as a `&U` when `T` is `U` (a type without lifetime parameters).
pub(crate) fn as_ref<T: ?Sized, U: 'static>(value: &T) -> Option<&U> {
    if is::<T, U>() {
        // SAFETY: `T` is `U` (same `TypeId`, and `U` has no lifetimes that
        // could differ), so the pointer is a valid `&U`; `U` being sized,
        // so is `T`, and the cast drops no metadata.
        Some(unsafe { &*(value as *const T as *const U) })
    } else {
        None
    }
}

/// `value` as a `T` when `T` is `U` (a type without lifetime
/// parameters); `None` otherwise.
pub(crate) fn cast<U: Copy + 'static, T>(value: U) -> Option<T> {
    if is::<T, U>() {
        // SAFETY: `T` is `U`, so the bits of `value` are a valid `T`, of
        // the same size; `U` is `Copy`, so nothing is dropped twice.
        Some(unsafe { std::mem::transmute_copy::<U, T>(&value) })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use mongodb::bson::oid::ObjectId;
    use mongodb::bson::DateTime;

    use super::*;

    #[test]
    fn types_are_told_apart() {
        assert!(is::<ObjectId, ObjectId>());
        assert!(!is::<ObjectId, DateTime>());
        assert!(!is::<Option<ObjectId>, ObjectId>());
        assert!(!is::<&ObjectId, ObjectId>());
        assert!(!is::<str, String>());
        assert!(is::<PhantomData<ObjectId>, PhantomData<ObjectId>>());
        let id = ObjectId::from_bytes([3; 12]);
        assert_eq!(as_ref::<ObjectId, ObjectId>(&id), Some(&id));
        assert_eq!(as_ref::<ObjectId, DateTime>(&id), None);
        assert_eq!(cast::<ObjectId, ObjectId>(id), Some(id));
        assert_eq!(cast::<ObjectId, i64>(id), None);
    }

    #[test]
    fn borrowed_types_are_compared_too() {
        fn check<'a>(_s: &'a str) -> bool {
            is::<&'a str, ObjectId>()
        }
        assert!(!check("x"));
        assert!(is::<PhantomData<&str>, PhantomData<&'static str>>());
    }
}
