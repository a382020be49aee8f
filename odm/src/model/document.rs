//! The trait `#[derive(Document)]` implements.

use std::any::{Any, TypeId};

use mongodb::Database;

use crate::error::{Result, ValidationErrors};
use crate::model::Model;
use crate::schema::Schema;

/// A struct stored as one MongoDB document. Derive it:
/// `#[derive(Serialize, Deserialize, Document)]`.
///
/// Implementing it by hand is possible but not the intended use; the
/// derive checks the attributes at compile time.
pub trait Document: Schema {
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

    /// The version of an operation that applies the model's referential
    /// rules ([`refs`](crate::refs)), for the operation whose function type
    /// has the `TypeId` `op`; `None` for a model without rules. The derive
    /// implements it for models with rules. Not public API.
    #[doc(hidden)]
    fn __odm_guard(_op: TypeId) -> Option<&'static (dyn Any + Send + Sync)> {
        None
    }
}

/// The version of the operation of function type `G` that applies `T`'s
/// referential rules, when `T` has rules: every operation that writes a
/// reference or deletes a referred-to document asks this first (see
/// `refs`), through the model type, since the rules' code lives in a
/// higher layer.
pub(crate) fn guard<T: Document, G: Copy + 'static>() -> Option<G> {
    T::__odm_guard(TypeId::of::<G>())?
        .downcast_ref::<G>()
        .copied()
}
