//! The trait `#[derive(Document)]` implements.

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
}
