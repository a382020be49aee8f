//! [`Aggregate::lookup`]: a `$lookup` stage joining the targets of a
//! reference field, decoded into the target model.

use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::stream::{self, BoxStream};
use futures_util::{Stream, StreamExt, TryStreamExt};
use mongodb::bson::doc;
use mongodb::bson::raw::{RawBsonRef, RawDocument, RawDocumentBuf};
use serde::de::DeserializeOwned;

use super::linked::{Linked, RefField};
use crate::aggregate::Aggregate;
use crate::error::{from_driver, Result};
use crate::fields::{FieldPath, Prefix};
use crate::model::doc::Doc;
use crate::model::stream::Source;
use crate::model::{Document, Model};
use crate::wire::session::{awaitable, BoxFuture};

/// The field the joined documents are put in, removed again before the
/// row is decoded.
const JOINED: &str = "__odm_joined";

impl<'a, T: Document, R> Aggregate<'a, T, R> {
    /// Appends a `$lookup` of the documents of `from` that the reference
    /// field `local` (a `Ref<U>`, `Option<Ref<U>>` or `Vec<Ref<U>>` path of
    /// this model, maybe nested) points at, and ends the pipeline: each
    /// result is a [`Joined`] of the row, decoded into `T` (another type
    /// with [`with_type`](Lookup::with_type)), and the joined documents as
    /// tracked `Doc<U>`s, loaded as [`Model::find`] loads them. A path
    /// that is not a reference to `U` does not compile.
    ///
    /// ```no_run
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # struct User { #[serde(rename = "_id")] id: ObjectId, name: String }
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # struct Post { #[serde(rename = "_id")] id: ObjectId, title: String, author: Ref<User> }
    /// # async fn run(users: Model<User>, posts: Model<Post>) -> odm::Result<()> {
    /// let f = Post::fields();
    /// let rows = posts
    ///     .aggregate([])
    ///     .filter(f.title().eq("Hello"))
    ///     .lookup(f.author(), &users)
    ///     .await?;
    /// for row in rows {
    ///     let author: Option<&Doc<User>> = row.joined.first();
    ///     println!("{} by {:?}", row.value.title, author.map(|a| &a.name));
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// The stage is `{$lookup: {from: <U's collection>, localField:
    /// <path>, foreignField: "_id", as: "__odm_joined"}}`; the joined
    /// documents come in the order the server finds them (for a list of
    /// refs, not the list's order). The row is decoded without the joined
    /// field and without `T`'s version key.
    pub fn lookup<F, P, U>(self, local: FieldPath<F, P>, from: &'a Model<U>) -> Lookup<'a, T, U>
    where
        F: RefField<Target = U>,
        P: Prefix,
        U: Linked,
    {
        let stage = doc! { "$lookup": {
            "from": from.name(),
            "localField": local.as_str(),
            "foreignField": "_id",
            "as": JOINED,
        } };
        Lookup {
            aggregate: self.stage(stage).with_type(),
            from,
            _row: PhantomData,
        }
    }
}

/// A pending [`Aggregate::lookup`]: awaited, a `Vec` of [`Joined`] rows
/// (rows decoded into `V`, `T` unless [`with_type`](Lookup::with_type)
/// says otherwise); [`stream`](Lookup::stream) reads them batch by batch.
#[must_use = "nothing is run until it is awaited"]
pub struct Lookup<'a, T: Document, U: Document, V = T> {
    aggregate: Aggregate<'a, T, ()>,
    from: &'a Model<U>,
    _row: PhantomData<fn() -> V>,
}

/// One row of a [`Lookup`]: the row and the documents it joined.
#[derive(Debug)]
#[non_exhaustive]
pub struct Joined<V, U: Document> {
    /// The row, without the joined field.
    pub value: V,
    /// The documents the row's reference field points at that exist,
    /// tracked (none for a dangling or `null` reference).
    pub joined: Vec<Doc<U>>,
}

impl<'a, T: Document, U: Linked, V> Lookup<'a, T, U, V> {
    /// Decodes the rows into `W` instead (a view of `T`, a report row).
    pub fn with_type<W>(self) -> Lookup<'a, T, U, W> {
        Lookup {
            aggregate: self.aggregate,
            from: self.from,
            _row: PhantomData,
        }
    }

    /// The stages as they will be sent.
    pub fn pipeline(&self) -> &[mongodb::bson::Document] {
        self.aggregate.pipeline()
    }

    /// Runs inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut mongodb::ClientSession) -> Self {
        self.aggregate = self.aggregate.session(session);
        self
    }
}

impl<'a, T: Document, U: Linked, V: DeserializeOwned + 'a> Lookup<'a, T, U, V> {
    /// Sends the aggregation; its rows one at a time. A row that does not
    /// load is one `Err` item and the stream goes on.
    pub fn stream(self) -> BoxFuture<'a, Result<LookupStream<'a, V, U>>> {
        Box::pin(async move {
            let model = self.aggregate.model();
            let from = self.from;
            let source = self.aggregate.open().await?;
            Ok(LookupStream::new(model, from, source))
        })
    }
}

awaitable! {
    impl['a, T: Document, U: Linked, V: DeserializeOwned + Send + 'a] Lookup<'a, T, U, V> => Result<Vec<Joined<V, U>>>;
    into_future(self) async move { self.stream().await?.try_collect().await }
}

/// The rows of a [`Lookup`], from [`Lookup::stream`].
#[must_use = "a stream does nothing unless polled"]
pub struct LookupStream<'a, V, U: Document> {
    inner: BoxStream<'a, Result<Joined<V, U>>>,
}

impl<'a, V: DeserializeOwned + 'a, U: Linked> LookupStream<'a, V, U> {
    fn new<T: Document>(model: &'a Model<T>, from: &'a Model<U>, source: Source<'a>) -> Self {
        let name = model.name();
        let key = T::__odm_meta().versioning.key;
        let inner = stream::unfold(Some(source), move |state| async move {
            let mut source = state?;
            match source.next().await? {
                Ok(raw) => Some((split(&raw, name, key, from), Some(source))),
                Err(e) => Some((Err(from_driver(e, name)), None)),
            }
        });
        LookupStream {
            inner: inner.boxed(),
        }
    }
}

impl<V, U: Document> Stream for LookupStream<'_, V, U> {
    type Item = Result<Joined<V, U>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// A result row: the joined documents, tracked by `from`, and the row
/// without them, decoded.
fn split<V: DeserializeOwned, U: Linked>(
    raw: &RawDocument,
    collection: &str,
    key: Option<&'static str>,
    from: &Model<U>,
) -> Result<Joined<V, U>> {
    let mut row = RawDocumentBuf::new();
    let mut joined = Vec::new();
    for element in raw {
        let (k, v) = element.map_err(crate::codec::scan::raw_error)?;
        let k = crate::bson_release::key_str(k);
        match v {
            RawBsonRef::Array(docs) if k == JOINED => {
                for doc in docs {
                    if let Some(doc) = doc.map_err(crate::codec::scan::raw_error)?.as_document() {
                        joined.push(from.track(doc.to_owned())?);
                    }
                }
            }
            v => crate::bson_release::append_ref(&mut row, k, v),
        }
    }
    // An aggregation's row is not a stored document: decoded as it comes
    // (the version key hidden), never upgraded.
    let value = crate::codec::decode::<V>(&row, crate::codec::Hidden::version(key)).map_err(
        |(row, e)| crate::codec::deserialize_error::<V>(&row, collection, e.to_string()),
    )?;
    Ok(Joined { value, joined })
}
