//! [`Model::distinct`]: the distinct values of one field, typed by it.

use std::collections::{BTreeSet, HashSet, VecDeque};
use std::marker::PhantomData;

use mongodb::bson::{Bson, Document as BsonDocument};
use mongodb::ClientSession;
use serde::de::DeserializeOwned;

use crate::error::{from_driver, DeserializeError, Error, Result};
use crate::fields::{FieldPath, Prefix};
use crate::model::Document;
use crate::model::Model;
use crate::wire::command_log::{Answer, Command};
use crate::wire::session::awaitable;

/// A field of this type has distinct values of type `V`: the field's own
/// type, or the element type of an array field (the server lists the
/// elements).
///
/// For an array field both fit, so name the one wanted:
/// `let tags: Vec<String> = users.distinct(f.tags(), doc! {}).await?;`.
#[diagnostic::on_unimplemented(
    message = "a field of type `{Self}` has no distinct values of type `{V}`",
    label = "distinct values have the field's type, or its element type for an array"
)]
pub trait DistinctOf<V> {}

impl<T> DistinctOf<T> for T {}
impl<T> DistinctOf<T> for Vec<T> {}
impl<T> DistinctOf<T> for VecDeque<T> {}
impl<T, S> DistinctOf<T> for HashSet<T, S> {}
impl<T> DistinctOf<T> for BTreeSet<T> {}
impl<T, const N: usize> DistinctOf<T> for [T; N] {}

impl<T: Document> Model<T> {
    /// The distinct values of the field at `path` among the documents
    /// matching `filter` (a `bson::Document` or a typed
    /// [`Filter`](crate::typed::Filter)), in the server's order, each
    /// decoded as the field's type (the element type for an array field).
    /// A null is one value (`None` of an `Option` field); a missing field
    /// none.
    pub fn distinct<F, P: Prefix, V>(
        &self,
        path: FieldPath<F, P>,
        filter: impl Into<BsonDocument>,
    ) -> Distinct<'_, T, V>
    where
        F: DistinctOf<V>,
        V: DeserializeOwned,
    {
        Distinct {
            model: self,
            path: path.as_str(),
            filter: filter.into(),
            session: None,
            _value: PhantomData,
        }
    }
}

/// A pending [`Model::distinct`].
#[must_use = "nothing is read until it is awaited"]
pub struct Distinct<'a, T: Document, V> {
    model: &'a Model<T>,
    path: &'static str,
    filter: BsonDocument,
    session: Option<&'a mut ClientSession>,
    _value: PhantomData<fn() -> V>,
}

struct Values(Vec<Bson>);

impl Answer for Values {
    fn brief(&self) -> String {
        format!("{} values", self.0.len())
    }
}

awaitable! {
    impl['a, T: Document, V: DeserializeOwned + 'a] Distinct<'a, T, V> => Result<Vec<V>>;
    /// Reads inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        let name = self.model.name();
        let log = Command::new(name, "distinct").filter(&self.filter);
        let action = self.model.collection().distinct(self.path, self.filter);
        let sent = async {
            crate::wire::session::send(action, self.session)
                .await
                .map(Values)
        };
        let values = log.send(sent).await.map_err(|e| from_driver(e, name))?;
        values
            .0
            .into_iter()
            .map(|v| decode(v, name, self.path))
            .collect()
    }
}

/// One distinct value as `V`; a value that does not decode names the
/// collection and the field (it has no one `_id`).
fn decode<V: DeserializeOwned>(value: Bson, collection: &str, path: &str) -> Result<V> {
    crate::bson_release::from_bson(value.clone()).map_err(|e| {
        Error::Deserialize(Box::new(DeserializeError {
            collection: collection.to_string(),
            id: Bson::Null,
            path: path.to_string(),
            message: format!("distinct value {value}: {e}"),
        }))
    })
}
