//! [`Find::lean`] and [`Find::projection`]: plain values, not tracked.
//!
//! A tracked load ([`Doc`](crate::Doc)) keeps what it needs to diff a
//! later save; a lean one decodes the stored document into the plain type
//! and nothing else, for read-only paths (an API response, a report). A
//! projection also asks the server for fewer fields, and decodes into a
//! smaller type, which has no [`Document`] impl of its own and so cannot
//! be saved.

use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::stream::{self, BoxStream};
use futures_util::{Stream, StreamExt, TryStreamExt};
use mongodb::bson::raw::{RawBsonRef, RawDocumentBuf};
use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::ClientSession;
use serde::de::DeserializeOwned;

use super::Projection;
use crate::codec;
use crate::codec::upgrade;
use crate::error::{from_driver, Result};
use crate::model::query::Find;
use crate::model::stream::Source;
use crate::model::Document;
use crate::wire::session::awaitable;
use crate::wire::session::BoxFuture;

impl<'a, T: Document> Find<'a, T> {
    /// The matching documents as plain `T` values: decoded, not tracked
    /// (no snapshot, nothing to save), for read-only paths. Awaited, a
    /// `Vec<T>`; or one at a time with [`stream`](Lean::stream).
    pub fn lean(self) -> Lean<'a, T> {
        Lean {
            find: self,
            _value: PhantomData,
        }
    }

    /// The matching documents decoded into `P`, a smaller serde type (derive
    /// [`Fields`](crate::Fields) on it): only `P`'s fields (and `_id`) are
    /// read. Not tracked, and `P` cannot be saved. A document lacking a
    /// field `P` requires fails to load with
    /// [`Error::Deserialize`](crate::Error::Deserialize) naming its `_id`
    /// and the field.
    pub fn projection<P>(mut self) -> Projected<'a, T, P>
    where
        P: Projection + DeserializeOwned,
    {
        self.options.projection = Some(projection::<T, P>());
        Lean {
            find: self,
            _value: PhantomData,
        }
    }
}

/// A pending [`Find::lean`] (values of `V = T`) or [`Find::projection`]
/// (values of `V = P`).
#[must_use = "nothing is read until it is awaited"]
pub struct Lean<'a, T: Document, V = T> {
    pub(crate) find: Find<'a, T>,
    _value: PhantomData<fn() -> V>,
}

/// A pending [`Find::projection`].
pub type Projected<'a, T, P> = Lean<'a, T, P>;

impl<'a, T: Document, V: DeserializeOwned + 'a> Lean<'a, T, V> {
    /// The order of the results.
    pub fn sort(mut self, sort: impl Into<BsonDocument>) -> Self {
        self.find = self.find.sort(sort);
        self
    }

    /// At most this many documents.
    pub fn limit(mut self, limit: i64) -> Self {
        self.find = self.find.limit(limit);
        self
    }

    /// Skips this many matching documents first.
    pub fn skip(mut self, skip: u64) -> Self {
        self.find = self.find.skip(skip);
        self
    }

    /// How many documents the server sends per batch.
    pub fn batch_size(mut self, documents: u32) -> Self {
        self.find = self.find.batch_size(documents);
        self
    }

    /// Reads inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.find = self.find.session(session);
        self
    }

    /// Sends the query and returns its values as a `Stream` over the
    /// server's cursor. A document that does not decode is one `Err` item
    /// and the stream goes on; a cursor error is the last item.
    pub fn stream(self) -> BoxFuture<'a, Result<LeanStream<'a, V>>> {
        Box::pin(async move {
            let model = self.find.model;
            let projection = self.find.options.projection.clone();
            let source = self.find.open().await?;
            Ok(LeanStream::new(
                model.name(),
                projection,
                decode::<T, V>,
                source,
            ))
        })
    }
}

awaitable! {
    impl['a, T: Document, V: DeserializeOwned + Send + 'a] Lean<'a, T, V> => Result<Vec<V>>;
    into_future(self) async move { self.stream().await?.try_collect().await }
}

/// The values of a [`Lean`] read, one at a time, from [`Lean::stream`].
#[must_use = "a stream does nothing unless polled"]
pub struct LeanStream<'a, V> {
    inner: BoxStream<'a, Result<V>>,
}

/// How a [`LeanStream`] decodes one stored document (see [`decode`]).
type Decoder<V> = fn(&RawDocumentBuf, &str, Option<&BsonDocument>) -> Result<V>;

impl<'a, V: DeserializeOwned + 'a> LeanStream<'a, V> {
    fn new(
        collection: &'a str,
        projection: Option<BsonDocument>,
        decode: Decoder<V>,
        source: Source<'a>,
    ) -> Self {
        let inner = stream::unfold(Some(source), move |state| {
            let projection = projection.clone();
            async move {
                let mut source = state?;
                match source.next().await? {
                    Ok(raw) => Some((decode(&raw, collection, projection.as_ref()), Some(source))),
                    Err(e) => Some((Err(from_driver(e, collection)), None)),
                }
            }
        });
        LeanStream {
            inner: inner.boxed(),
        }
    }
}

impl<V> Stream for LeanStream<'_, V> {
    type Item = Result<V>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// The computed field a projection of a model with a schema version adds:
/// the whole stored document, for a document stored at an older schema
/// version only (its upgrade needs every field, not only the projected
/// ones; a current document comes back projected, as without it).
pub(crate) const WHOLE: &str = "__odm_whole";

/// The projection of `P`'s fields on `T`'s documents: `{ field: 1, .. }`,
/// plus the schema version key and [`WHOLE`] for a model with a schema
/// version.
pub(crate) fn projection<T: Document, P: Projection>() -> BsonDocument {
    let mut fields = super::fields_of::<P>();
    if let Some(schema) = T::__odm_meta().schema {
        // The schema version tells a current document from an older one.
        fields.insert(schema.key, 1);
        let older = doc! { "$lt": [format!("${}", schema.key), i64::from(schema.current)] };
        fields.insert(WHOLE, doc! { "$cond": [older, "$$ROOT", "$$REMOVE"] });
    }
    fields
}

/// A stored document of model `T` as a plain value (odm's keys hidden from
/// it, a document at an older schema version upgraded first); a failure
/// names the `_id` and the field, as a tracked load does. Under a
/// `projection` (see [`projection`]), an older document comes back whole
/// under [`WHOLE`]: it is upgraded, then cut to the projected fields.
pub(crate) fn decode<T: Document, V: DeserializeOwned>(
    raw: &RawDocumentBuf,
    collection: &str,
    projection: Option<&BsonDocument>,
) -> Result<V> {
    let layout = crate::schema::layout::<T>();
    if let (Some(projection), Some(schema)) = (projection, &layout.schema) {
        if let Ok(Some(RawBsonRef::Document(whole))) = raw.get(WHOLE) {
            let stored = upgrade::read_checked(whole, schema, collection)?;
            let upgraded = match upgrade::older(stored, schema) {
                Some(from) => {
                    let id = codec::read_id(whole)?;
                    let hidden = layout.hidden;
                    upgrade::upgrade(whole, schema, hidden, from, collection, &id)?
                }
                None => whole.to_owned(),
            };
            let mut cut = RawDocumentBuf::new();
            for element in &upgraded {
                let (key, value) = element.map_err(crate::codec::scan::raw_error)?;
                let key = crate::bson_release::key_str(key);
                let projected = projection
                    .keys()
                    .any(|path| path != WHOLE && crate::plan::update_ops::same_or_under(path, key));
                if key == "_id" || projected {
                    crate::bson_release::append_ref(&mut cut, key, value);
                }
            }
            let plain = codec::Layout::version(layout.hidden.version);
            return codec::load_value(&cut, collection, &plain);
        }
    }
    codec::load_value(raw, collection, &layout)
}
