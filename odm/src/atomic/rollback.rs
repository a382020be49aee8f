//! `Rollback`: what a transaction restores when an attempt does not commit.

use crate::model::doc::Doc;
use crate::model::Document;
use crate::model::Model;

/// State that [`transaction`](crate::transaction) puts back when an attempt
/// is rolled back (retried or aborted), so the closure can run again from
/// the same start and an aborted transaction leaves no trace in memory.
///
/// Implemented for [`Doc<T>`] (value, snapshot and version; needs
/// `T: Clone`), for `&mut` of anything implementing it, for shared
/// references and [`Model`] (nothing to restore), and for `()`, tuples,
/// `Vec` and `Option` of implementors. Implement it for your own context
/// type when it carries other state the closure changes.
pub trait Rollback {
    /// A copy of the state, taken before the first attempt.
    type Checkpoint: Send;

    /// Records the current state.
    fn checkpoint(&self) -> Self::Checkpoint;

    /// Puts the recorded state back; may be called several times.
    fn rollback(&mut self, checkpoint: &Self::Checkpoint);

    /// [`rollback`](Rollback::rollback) after a commit whose outcome is
    /// unknown (it may have landed): a `Doc` is put back and marked in
    /// doubt, so its next save that bumps the version also checks it and
    /// cannot apply a change twice. Containers forward it to what they hold.
    #[doc(hidden)]
    fn rollback_in_doubt(&mut self, checkpoint: &Self::Checkpoint) {
        self.rollback(checkpoint);
    }
}

/// The recorded state of one [`Doc`].
pub struct DocCheckpoint<T: Document>(Doc<T>);

impl<T: Document + Clone> Rollback for Doc<T> {
    type Checkpoint = DocCheckpoint<T>;

    fn checkpoint(&self) -> DocCheckpoint<T> {
        DocCheckpoint(self.duplicate())
    }

    fn rollback(&mut self, checkpoint: &DocCheckpoint<T>) {
        *self = checkpoint.0.duplicate();
    }

    fn rollback_in_doubt(&mut self, checkpoint: &DocCheckpoint<T>) {
        self.rollback(checkpoint);
        self.in_doubt = true;
    }
}

impl<X: Rollback + ?Sized> Rollback for &mut X {
    type Checkpoint = X::Checkpoint;

    fn checkpoint(&self) -> X::Checkpoint {
        (**self).checkpoint()
    }

    fn rollback(&mut self, checkpoint: &X::Checkpoint) {
        (**self).rollback(checkpoint);
    }

    fn rollback_in_doubt(&mut self, checkpoint: &X::Checkpoint) {
        (**self).rollback_in_doubt(checkpoint);
    }
}

/// A shared reference cannot have been changed by the closure.
impl<X: ?Sized> Rollback for &X {
    type Checkpoint = ();
    fn checkpoint(&self) {}
    fn rollback(&mut self, _: &()) {}
}

/// A model handle holds no state of its own.
impl<T> Rollback for Model<T> {
    type Checkpoint = ();
    fn checkpoint(&self) {}
    fn rollback(&mut self, _: &()) {}
}

impl<X: Rollback> Rollback for Vec<X> {
    type Checkpoint = Vec<X::Checkpoint>;

    fn checkpoint(&self) -> Self::Checkpoint {
        self.iter().map(Rollback::checkpoint).collect()
    }

    /// Restores the elements recorded; elements added since are dropped.
    fn rollback(&mut self, checkpoint: &Self::Checkpoint) {
        self.truncate(checkpoint.len());
        for (x, c) in self.iter_mut().zip(checkpoint) {
            x.rollback(c);
        }
    }

    fn rollback_in_doubt(&mut self, checkpoint: &Self::Checkpoint) {
        self.rollback(checkpoint);
        for (x, c) in self.iter_mut().zip(checkpoint) {
            x.rollback_in_doubt(c);
        }
    }
}

impl<X: Rollback> Rollback for Option<X> {
    type Checkpoint = Option<X::Checkpoint>;

    fn checkpoint(&self) -> Self::Checkpoint {
        self.as_ref().map(Rollback::checkpoint)
    }

    /// Restores a value that was there; one set since is removed.
    fn rollback(&mut self, checkpoint: &Self::Checkpoint) {
        match (self.as_mut(), checkpoint) {
            (Some(x), Some(c)) => x.rollback(c),
            (_, None) => *self = None,
            (None, Some(_)) => {}
        }
    }

    fn rollback_in_doubt(&mut self, checkpoint: &Self::Checkpoint) {
        match (self.as_mut(), checkpoint) {
            (Some(x), Some(c)) => x.rollback_in_doubt(c),
            _ => self.rollback(checkpoint),
        }
    }
}

macro_rules! tuple_rollback {
    ($($name:ident $index:tt),*) => {
        impl<$($name: Rollback),*> Rollback for ($($name,)*) {
            type Checkpoint = ($($name::Checkpoint,)*);

            #[allow(clippy::unused_unit)]
            fn checkpoint(&self) -> Self::Checkpoint {
                ($(self.$index.checkpoint(),)*)
            }

            #[allow(unused_variables)]
            fn rollback(&mut self, checkpoint: &Self::Checkpoint) {
                $(self.$index.rollback(&checkpoint.$index);)*
            }

            #[allow(unused_variables)]
            fn rollback_in_doubt(&mut self, checkpoint: &Self::Checkpoint) {
                $(self.$index.rollback_in_doubt(&checkpoint.$index);)*
            }
        }
    };
}

tuple_rollback!();
tuple_rollback!(A 0);
tuple_rollback!(A 0, B 1);
tuple_rollback!(A 0, B 1, C 2);
tuple_rollback!(A 0, B 1, C 2, D 3);
tuple_rollback!(A 0, B 1, C 2, D 3, E 4);
tuple_rollback!(A 0, B 1, C 2, D 3, E 4, F 5);
