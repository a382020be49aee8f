//! [`FindOne::lean`] and [`FindOne::projection`]: one plain value, not
//! tracked, as [`Find::lean`](crate::Find::lean) and
//! [`Find::projection`](crate::Find::projection) read many.

use std::marker::PhantomData;

use mongodb::bson::Document as BsonDocument;
use mongodb::ClientSession;
use serde::de::DeserializeOwned;

use super::Projection;
use crate::error::{from_driver, Result};
use crate::model::query::FindOne;
use crate::model::Document;
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;

impl<'a, T: Document> FindOne<'a, T> {
    /// The document as a plain `T`: decoded, not tracked (no snapshot,
    /// nothing to save), for read-only paths.
    pub fn lean(self) -> LeanOne<'a, T> {
        LeanOne {
            find: self,
            _value: PhantomData,
        }
    }

    /// The document decoded into `P`, a smaller serde type (derive
    /// [`Fields`](crate::Fields) on it): only `P`'s fields (and `_id`) are
    /// read. Not tracked, and `P` cannot be saved. A document lacking a
    /// field `P` requires fails with
    /// [`Error::Deserialize`](crate::Error::Deserialize) naming its `_id`
    /// and the field.
    pub fn projection<P>(mut self) -> ProjectedOne<'a, T, P>
    where
        P: Projection + DeserializeOwned,
    {
        self.options.projection = Some(super::lean::projection::<T, P>());
        LeanOne {
            find: self,
            _value: PhantomData,
        }
    }
}

/// A pending [`FindOne::lean`] (a value of `V = T`) or
/// [`FindOne::projection`] (a value of `V = P`).
#[must_use = "nothing is read until it is awaited"]
pub struct LeanOne<'a, T: Document, V = T> {
    find: FindOne<'a, T>,
    _value: PhantomData<fn() -> V>,
}

/// A pending [`FindOne::projection`].
pub type ProjectedOne<'a, T, P> = LeanOne<'a, T, P>;

impl<'a, T: Document, V> LeanOne<'a, T, V> {
    /// Which document is first when several match.
    pub fn sort(mut self, sort: impl Into<BsonDocument>) -> Self {
        self.find = self.find.sort(sort);
        self
    }

    /// Reads inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.find = self.find.session(session);
        self
    }
}

awaitable! {
    impl['a, T: Document, V: DeserializeOwned + Send + 'a] LeanOne<'a, T, V> => Result<Option<V>>;
    into_future(self) async move {
        let FindOne {
            model,
            filter,
            sort,
            mut options,
            session,
        } = self.find;
        if sort.is_some() {
            options.sort = sort;
        }
        let projection = options.projection.clone();
        let log = Command::new(model.name(), "find").filter(&filter);
        let action = model
            .raw_collection()
            .find_one(filter)
            .with_options(options);
        let found = log.send(crate::wire::session::send(action, session)).await;
        match found.map_err(|e| from_driver(e, model.name()))? {
            Some(raw) => {
                super::lean::decode::<T, V>(&raw, model.name(), projection.as_ref()).map(Some)
            }
            None => Ok(None),
        }
    }
}
