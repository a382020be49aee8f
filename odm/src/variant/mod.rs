//! A kind's own handle on an enum model: `events.variant::<Click>()`.
//!
//! An enum model (`#[derive(Document)]` on an internally tagged enum,
//! `#[serde(tag = "kind")]`) keeps every kind of document in one
//! collection; [`Model::variant`] gives the handle of one kind, for each
//! newtype variant's type. Every filter it sends holds the kind (`{kind:
//! "Click"}` added to the caller's filter, raw or typed), so its reads,
//! counts, updates and deletes never reach another kind; its
//! [`create`](Variant::create) stores the kind. Documents come back as
//! `Doc<Event>` (the enum): they save like any `Doc`.
//!
//! ```no_run
//! use odm::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, Clone, Serialize, Deserialize, Document)]
//! #[odm(collection = "events")]
//! #[serde(tag = "kind")]
//! pub enum Event {
//!     Click(Click),
//!     Purchase(Purchase),
//! }
//!
//! #[derive(Debug, Clone, Serialize, Deserialize, Fields)]
//! pub struct Click {
//!     #[serde(rename = "_id")]
//!     pub id: ObjectId,
//!     pub element: String,
//! }
//!
//! #[derive(Debug, Clone, Serialize, Deserialize)]
//! pub struct Purchase {
//!     #[serde(rename = "_id")]
//!     pub id: ObjectId,
//!     pub cents: i64,
//! }
//!
//! # async fn run(db: mongodb::Database) -> odm::Result<()> {
//! let events = Event::model(&db);
//! let clicks = events.variant::<Click>();
//! clicks.create(Click { id: ObjectId::new(), element: "#buy".into() }).await?;
//! // {element: "#buy", kind: "Click"}: a typed filter of the kind's own fields.
//! let on_buy = clicks.count(Click::fields().element().eq("#buy")).await?;
//! let purchases = events.variant::<Purchase>().delete_many(doc! {}).await?;
//! # let _ = (on_buy, purchases);
//! # Ok(()) }
//! ```

use std::fmt;
use std::marker::PhantomData;

use mongodb::bson::{doc, Bson, Document as BsonDocument};

use crate::atomic::{Claim, Upsert};
use crate::many::{DeleteMany, UpdateMany};
use crate::model::doc::Doc;
use crate::model::query::{Count, Create, Find, FindOne};
use crate::model::{Document, Model};
use crate::plan::kind::scoped;
use crate::typed::Exists;

pub use crate::schema::kind::Kind;

/// The handle of the kind `V` of the enum model `T` (see the
/// [module](self)); from [`Model::variant`]. Cheap to copy; it borrows the
/// model.
pub struct Variant<'a, T, V> {
    model: &'a Model<T>,
    _kind: PhantomData<fn() -> V>,
}

impl<T, V> Clone for Variant<'_, T, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, V> Copy for Variant<'_, T, V> {}

impl<T: Document, V: Kind<T>> fmt::Debug for Variant<'_, T, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Variant")
            .field("model", self.model)
            .field("kind", &V::NAME)
            .finish()
    }
}

impl<T: Document> Model<T> {
    /// The handle of one kind of this enum model: `V` is the type a
    /// newtype variant holds (`Event::Click(Click)` gives
    /// `variant::<Click>()`); a type that is not one does not compile.
    /// See [`Variant`].
    pub fn variant<V: Kind<T>>(&self) -> Variant<'_, T, V> {
        Variant {
            model: self,
            _kind: PhantomData,
        }
    }
}

impl<'a, T: Document, V: Kind<T>> Variant<'a, T, V> {
    /// The kind's stored name: the value of the kind key in its documents.
    pub fn name(&self) -> &'static str {
        V::NAME
    }

    /// The model this kind belongs to.
    pub fn model(&self) -> &'a Model<T> {
        self.model
    }

    /// `filter` (a `bson::Document` or a typed filter) restricted to this
    /// kind: what every operation of the handle sends.
    pub fn filter(&self, filter: impl Into<BsonDocument>) -> BsonDocument {
        let key = match T::__odm_meta().kinds {
            Some(kinds) => kinds.key,
            // `Kind<T>` is implemented only by an enum model's derive,
            // which always records its kinds.
            None => unreachable!("a kind of a model that has no kinds"),
        };
        scoped(filter.into(), key, V::NAME)
    }

    /// Every document of this kind matching `filter`; see [`Model::find`].
    pub fn find(&self, filter: impl Into<BsonDocument>) -> Find<'a, T> {
        self.model.find(self.filter(filter))
    }

    /// The first document of this kind matching `filter`; see
    /// [`Model::find_one`].
    pub fn find_one(&self, filter: impl Into<BsonDocument>) -> FindOne<'a, T> {
        self.model.find_one(self.filter(filter))
    }

    /// The document of this kind with this `_id`, if any (`None` when the
    /// `_id` holds another kind).
    pub fn find_by_id(&self, id: impl Into<Bson>) -> FindOne<'a, T> {
        self.find_one(doc! { "_id": id.into() })
    }

    /// How many documents of this kind match `filter`.
    pub fn count(&self, filter: impl Into<BsonDocument>) -> Count<'a, T> {
        self.model.count(self.filter(filter))
    }

    /// Whether a document of this kind matches `filter`.
    pub fn exists(&self, filter: impl Into<BsonDocument>) -> Exists<'a, T> {
        self.model.exists(self.filter(filter))
    }

    /// [`Model::update_many`] on the documents of this kind matching
    /// `filter`. An `update` that writes the kind key is refused before
    /// sending ([`Error::Validation`](crate::Error::Validation)): a change
    /// of kind is a save of the `Doc` given the new variant.
    pub fn update_many(
        &self,
        filter: impl Into<BsonDocument>,
        update: impl Into<BsonDocument>,
    ) -> UpdateMany<'a, T> {
        self.model.update_many(self.filter(filter), update)
    }

    /// [`Model::delete_many`] on the documents of this kind matching
    /// `filter`; returns how many were deleted.
    pub fn delete_many(&self, filter: impl Into<BsonDocument>) -> DeleteMany<'a, T> {
        self.model.delete_many(self.filter(filter))
    }

    /// [`Model::claim`] of one document of this kind matching `filter`.
    pub fn claim(
        &self,
        filter: impl Into<BsonDocument>,
        update: impl Into<BsonDocument>,
    ) -> Claim<'a, T> {
        self.model.claim(self.filter(filter), update.into())
    }

    /// [`Model::upsert`] of a document of this kind: the filter holds the
    /// kind, so a document it inserts is of this kind (the server copies
    /// the filter's equality terms into it); `set_on_insert` gives the
    /// kind's other fields.
    pub fn upsert(&self, filter: impl Into<BsonDocument>) -> Upsert<'a, T> {
        self.model.upsert(self.filter(filter))
    }

    /// Validates and inserts `value` now as a document of this kind (the
    /// kind key stored); see [`Model::create`].
    pub fn create(&self, value: V) -> Create<'a, T> {
        self.model.create(value.into_model())
    }

    /// An unsaved document of this kind; its first `save()` inserts it.
    pub fn new_doc(&self, value: V) -> Doc<T> {
        self.model.new_doc(value.into_model())
    }
}
