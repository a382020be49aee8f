//! Runtime collections: one model type on a collection chosen at run time
//! (a collection per tenant), and per-model collection options.
//!
//! See the crate guide, [Runtime collections](crate#runtime-collections).
//!
//! Everything else is unchanged: [`sync_indexes`](Model::sync_indexes)
//! creates the declared indexes on that collection, saves, reloads and
//! deletes go to it (a [`Doc`](crate::Doc) remembers the model it was
//! loaded or created by), and errors name it. Every command of the model
//! uses the options: the write concern for its writes, the read
//! preference and read concern for its reads (a read inside a transaction
//! takes the transaction's instead, as MongoDB requires).

use mongodb::options::CollectionOptions;
use mongodb::Database;

use crate::model::Document;
use crate::model::Model;

impl<T: Document> Model<T> {
    /// The handle to `T` on the collection `name` instead of the one the
    /// derive declares: the same type, its documents in another collection
    /// (a collection per tenant). Everything else is as with
    /// [`Model::new`].
    pub fn with_collection(db: &Database, name: &str) -> Self {
        Model::on(db, name, CollectionOptions::default())
    }

    /// The handle to `T`'s collection with collection options: the write
    /// concern of its writes, the read preference (`selection_criteria`)
    /// and read concern of its reads.
    pub fn with_options(db: &Database, options: CollectionOptions) -> Self {
        Model::on(db, T::__odm_meta().collection, options)
    }

    /// [`with_collection`](Model::with_collection) and
    /// [`with_options`](Model::with_options) together.
    pub fn with_collection_options(db: &Database, name: &str, options: CollectionOptions) -> Self {
        Model::on(db, name, options)
    }
}
