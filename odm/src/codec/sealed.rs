//! Whether a field's type changes only through `&mut`
//! ([`Same::__odm_sealed`]), asked of the type alone: generated code calls
//! `(&TypeProbe::<F>::NEW).odm_sealed()`, which answers `false` for a type
//! without [`Same`] (autoref specialization, as `codec::same::Probe`).

use std::any::TypeId;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::codec::same::Same;

/// [`Same::__odm_sealed`] of an embedded struct `S` (what
/// `#[derive(Fields)]` generates): `fields` answers for its fields. A
/// struct that holds itself (a tree: `children: Vec<Node>`) asks again
/// while it answers: that inner question is answered `true`, so the
/// struct is sealed exactly when its other parts are. The answer is kept
/// in `cache` once known without such an assumption (asked outside any
/// other struct's answer).
pub fn sealed_struct<S: 'static>(cache: &AtomicU8, fields: impl FnOnce() -> bool) -> bool {
    const NO: u8 = 1;
    const YES: u8 = 2;
    match cache.load(Ordering::Relaxed) {
        NO => return false,
        YES => return true,
        _ => {}
    }
    thread_local! {
        static ASKING: RefCell<Vec<TypeId>> = const { RefCell::new(Vec::new()) };
    }
    let id = TypeId::of::<S>();
    let (outermost, again) = ASKING.with(|asking| {
        let asking = asking.borrow();
        (asking.is_empty(), asking.contains(&id))
    });
    if again {
        return true;
    }
    ASKING.with(|asking| asking.borrow_mut().push(id));
    let sealed = fields();
    ASKING.with(|asking| asking.borrow_mut().pop());
    if outermost {
        cache.store(if sealed { YES } else { NO }, Ordering::Relaxed);
    }
    sealed
}

/// The type `F`, to ask of.
pub struct TypeProbe<F: ?Sized>(PhantomData<fn() -> *const F>);

impl<F: ?Sized> TypeProbe<F> {
    /// The probe.
    pub const NEW: Self = TypeProbe(PhantomData);
}

/// The answer for a type that is [`Same`]: its own.
pub trait ViaSealed {
    /// [`Same::__odm_sealed`].
    fn odm_sealed(&self) -> bool;
}

impl<F: Same> ViaSealed for TypeProbe<F> {
    #[inline]
    fn odm_sealed(&self) -> bool {
        F::__odm_sealed()
    }
}

/// The answer for any other type: `false`.
pub trait ViaUnsealed {
    /// `false`: the field may change behind `&`.
    fn odm_sealed(&self) -> bool;
}

impl<F: ?Sized> ViaUnsealed for &TypeProbe<F> {
    #[inline]
    fn odm_sealed(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::needless_borrow)]
    use super::{TypeProbe, ViaSealed as _, ViaUnsealed as _};
    use std::cell::Cell;
    use std::collections::{BTreeMap, HashMap};

    #[test]
    fn only_types_of_plain_parts_are_sealed() {
        assert!((&TypeProbe::<i64>::NEW).odm_sealed());
        assert!((&TypeProbe::<Vec<Option<String>>>::NEW).odm_sealed());
        assert!((&TypeProbe::<BTreeMap<String, [f64; 2]>>::NEW).odm_sealed());
        assert!(!(&TypeProbe::<Cell<i64>>::NEW).odm_sealed());
        assert!(!(&TypeProbe::<Vec<Cell<i64>>>::NEW).odm_sealed());
        assert!(!(&TypeProbe::<HashMap<String, i64>>::NEW).odm_sealed());
        assert!(!(&TypeProbe::<std::sync::Mutex<i64>>::NEW).odm_sealed());
        assert!(!(&TypeProbe::<str>::NEW).odm_sealed());
    }
}
