//! The trait `#[derive(Document)]` implements.

use std::future::Future;

use mongodb::Database;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{Result, ValidationErrors};
use crate::hooks::HookContext;
use crate::meta::Meta;
use crate::model::Model;

/// A struct stored as one MongoDB document. Derive it:
/// `#[derive(Serialize, Deserialize, Document)]`.
///
/// Implementing it by hand is possible but not the intended use; the
/// derive checks the attributes at compile time.
pub trait Document: Serialize + DeserializeOwned + Send + Sync + Unpin + 'static {
    /// What the derive recorded: collection, version key, field names.
    #[doc(hidden)]
    fn __odm_meta() -> &'static Meta;

    /// Runs every declared validator, collecting all failures.
    #[doc(hidden)]
    fn __odm_validate(&self, _errors: &mut ValidationErrors) {}

    /// Writes the `timestamps` fields: `created` (on insert) and `updated`.
    #[doc(hidden)]
    fn __odm_stamp(
        &mut self,
        _created: Option<mongodb::bson::DateTime>,
        _updated: mongodb::bson::DateTime,
    ) {
    }

    /// Writes `id` into the field stored as `_id` (the derive deserializes
    /// it into that field's type). Used on insert, to give a document whose
    /// `_id` is missing or null the `ObjectId` odm generates.
    #[doc(hidden)]
    fn __odm_set_id(
        &mut self,
        _id: mongodb::bson::Bson,
    ) -> Result<(), crate::bson_release::DeError> {
        Err(serde::de::Error::custom(
            "this `Document` implementation cannot write an id; derive `Document` to get one",
        ))
    }

    /// `before_save` of [`Hooks`](crate::Hooks), for a model with
    /// `#[odm(hooks)]`.
    #[doc(hidden)]
    fn __odm_before_save(
        &mut self,
        _ctx: &mut HookContext<'_>,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Ok(()) }
    }

    /// `after_save` of [`Hooks`](crate::Hooks).
    #[doc(hidden)]
    fn __odm_after_save(
        &self,
        _ctx: &mut HookContext<'_>,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Ok(()) }
    }

    /// `before_delete` of [`Hooks`](crate::Hooks).
    #[doc(hidden)]
    fn __odm_before_delete(
        &self,
        _ctx: &mut HookContext<'_>,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Ok(()) }
    }

    /// `after_delete` of [`Hooks`](crate::Hooks).
    #[doc(hidden)]
    fn __odm_after_delete(
        &self,
        _ctx: &mut HookContext<'_>,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Ok(()) }
    }

    /// The handle to this model's collection in `db`.
    fn model(db: &Database) -> Model<Self> {
        Model::new(db)
    }

    /// Checks the value with every declared validator; nothing is sent.
    fn validate(&self) -> Result<(), ValidationErrors> {
        let mut errors = ValidationErrors::new();
        self.__odm_validate(&mut errors);
        errors.into_result()
    }
}
