//! `&Ref<T>` in typed filters and updates of its field:
//! `Post::fields().author().eq(&r)`, `.reviewers().contains(&r)`,
//! `.author().is_in(&refs)`, `.editor().set(&r)`. (A `Ref<T>` by value
//! goes where any value of its field's type goes.)

use mongodb::bson::Bson;

use super::reference::Ref;
use crate::typed::{Store, Value};

type Encoded = Result<Bson, String>;

impl<T> Value<Ref<T>> for &Ref<T> {
    fn encode(self) -> Encoded {
        Ok(self.id().clone())
    }
}

impl<T> Value<Option<Ref<T>>> for &Ref<T> {
    fn encode(self) -> Encoded {
        Ok(self.id().clone())
    }
}

impl<T> Value<Vec<Ref<T>>> for &Ref<T> {
    fn encode(self) -> Encoded {
        Ok(self.id().clone())
    }
}

impl<T> Store<Ref<T>> for &Ref<T> {
    fn encode(self) -> Encoded {
        Ok(self.id().clone())
    }
}

impl<T> Store<Option<Ref<T>>> for &Ref<T> {
    fn encode(self) -> Encoded {
        Ok(self.id().clone())
    }
}
