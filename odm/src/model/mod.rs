//! `Model<T>`: the handle to one model's collection.

pub(crate) mod collections;
pub(crate) mod delete;
pub(crate) mod doc;
mod document;
pub(crate) mod edit;
pub(crate) mod execute;
pub(crate) mod execute_atomic;
pub mod hooks;
pub(crate) mod insert_id;
pub(crate) mod other_versions;
pub(crate) mod query;
pub(crate) mod read_options;
pub(crate) mod rebase;
pub(crate) mod refused;
pub(crate) mod reload;
pub(crate) mod save;
mod save_build;
pub(crate) mod shadow;
pub use save_build::{save_build, save_landed};
pub use shadow::copy_after_first_save;
pub(crate) mod stream;

pub(crate) use document::guard;
pub use document::Document;

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::Document as BsonDocument;
use mongodb::options::CollectionOptions;
use mongodb::{ClientSession, Collection, Database};

use crate::codec;
use crate::error::{from_driver, Result};
use crate::model::doc::Doc;
use crate::wire::command_log::Command;
use crate::wire::session::send;

/// The handle to the collection of model `T`. Cheap to clone; `Send + Sync`.
pub struct Model<T> {
    /// Both handles behind one reference count: every `Doc` holds its
    /// model, so a load clones it and a drop releases it (one atomic
    /// each way, not one per handle).
    handles: Arc<Handles>,
    _type: PhantomData<fn() -> T>,
}

/// The collection, typed for writes and for reads of raw bytes.
struct Handles {
    docs: Collection<BsonDocument>,
    raw: Collection<RawDocumentBuf>,
}

impl<T> Clone for Model<T> {
    fn clone(&self) -> Self {
        Model {
            handles: Arc::clone(&self.handles),
            _type: PhantomData,
        }
    }
}

impl<T> fmt::Debug for Model<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("namespace", &self.handles.docs.namespace().to_string())
            .finish()
    }
}

impl<T: Document> Model<T> {
    /// The handle to `T`'s collection in `db`.
    pub fn new(db: &Database) -> Self {
        let name = T::__odm_meta().collection;
        Model::of(db.collection(name), db.collection(name))
    }

    /// The handle to `T` on the collection `name` of `db`, with `options`
    /// (see [`Model::with_collection`] and [`Model::with_options`]).
    pub(crate) fn on(db: &Database, name: &str, options: CollectionOptions) -> Self {
        Model::of(
            db.collection_with_options(name, options.clone()),
            db.collection_with_options(name, options),
        )
    }

    fn of(docs: Collection<BsonDocument>, raw: Collection<RawDocumentBuf>) -> Self {
        Model {
            handles: Arc::new(Handles { docs, raw }),
            _type: PhantomData,
        }
    }

    /// The collection name.
    pub fn name(&self) -> &str {
        self.handles.docs.name()
    }

    /// The underlying collection: an escape hatch that bypasses tracking,
    /// versioning and validation.
    pub fn collection(&self) -> &Collection<BsonDocument> {
        &self.handles.docs
    }

    /// The database the collection is in.
    pub fn database(&self) -> Database {
        let namespace = self.handles.docs.namespace();
        self.handles.docs.client().database(&namespace.db)
    }

    pub(crate) fn raw_collection(&self) -> &Collection<RawDocumentBuf> {
        &self.handles.raw
    }

    /// Whether `other` is a clone of this handle (then of the same
    /// collection, with the same options).
    pub(crate) fn same_handle(&self, other: &Model<T>) -> bool {
        Arc::ptr_eq(&self.handles, &other.handles)
    }

    /// An unsaved document; its first `save()` inserts it.
    pub fn new_doc(&self, value: T) -> Doc<T> {
        Doc::new(self.clone(), value)
    }

    /// Tracks a document read by other means (e.g. through
    /// [`collection`](Model::collection) or an aggregation).
    pub fn hydrate(&self, raw: &RawDocumentBuf) -> Result<Doc<T>> {
        self.track(raw.clone())
    }

    /// [`hydrate`](Model::hydrate), keeping the bytes it is given.
    pub(crate) fn track(&self, raw: RawDocumentBuf) -> Result<Doc<T>> {
        let loaded = codec::load_with::<T>(
            raw,
            self.name(),
            &crate::schema::layout::<T>(),
            T::__odm_fast_decode,
        )?;
        Doc::loaded(self.clone(), loaded)
    }

    pub(crate) async fn find_raw(
        &self,
        filter: BsonDocument,
        session: Option<&mut ClientSession>,
    ) -> Result<Option<RawDocumentBuf>> {
        let log = Command::new(self.name(), "find").filter(&filter);
        let found = log
            .send(send(self.handles.raw.find_one(filter), session))
            .await;
        found.map_err(|e| from_driver(e, self.name()))
    }
}
