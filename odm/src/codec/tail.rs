//! A sequence's elements after its first `n`, written without serde
//! passing over the first ones: what the save of a field appended to
//! (`Doc::push`) writes, in a patch, where serde would hand the patch every
//! element of the field to reach the new ones. Generated code asks for it
//! through [`Probe`] ([`ViaTail`], falling back to [`ViaNoTail`]: "not
//! known", and serde's own sequence is written instead), for each field
//! serialized as its own value (no `serialize_with`).

use serde::Serialize;

use crate::codec::rawser::tail::Elements;
use crate::codec::same::Probe;

/// Where the elements of a sequence after its first `n` go (see the
/// module docs).
pub struct TailOut<'a>(pub(crate) Elements<'a>);

impl TailOut<'_> {
    /// Writes the next element; `false` when it cannot be written here
    /// (the save then writes the field another way).
    pub fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> bool {
        self.0.element(value)
    }
}

/// A sequence that writes its elements after the first `from` as its
/// `Serialize` writes them, one after the other.
pub trait Tail {
    /// Writes the elements after the first `from` into `out`; `false`
    /// when it holds fewer than `from` or one cannot be written.
    fn __odm_tail(&self, from: usize, out: &mut TailOut<'_>) -> bool;
}

impl<E: Serialize> Tail for Vec<E> {
    fn __odm_tail(&self, from: usize, out: &mut TailOut<'_>) -> bool {
        match self.get(from..) {
            Some(rest) => rest.iter().all(|e| out.element(e)),
            None => false,
        }
    }
}

/// The tail of a field whose type is a [`Tail`].
pub trait ViaTail {
    /// `Some` of [`Tail::__odm_tail`].
    fn odm_tail(&self, from: usize, out: &mut TailOut<'_>) -> Option<bool>;
}

impl<F: Tail> ViaTail for Probe<'_, F> {
    #[inline]
    fn odm_tail(&self, from: usize, out: &mut TailOut<'_>) -> Option<bool> {
        Some(self.0.__odm_tail(from, out))
    }
}

/// No tail for a field whose type is not a [`Tail`].
pub trait ViaNoTail {
    /// `None`: not known.
    fn odm_tail(&self, from: usize, out: &mut TailOut<'_>) -> Option<bool>;
}

impl<F> ViaNoTail for &Probe<'_, F> {
    #[inline]
    fn odm_tail(&self, _from: usize, _out: &mut TailOut<'_>) -> Option<bool> {
        None
    }
}
