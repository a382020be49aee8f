//! A batch of [`Model::bulk_save`](crate::Model::bulk_save) or
//! [`Model::insert_many`](crate::Model::insert_many) refused before
//! anything of it was sent.

use std::fmt;

use mongodb::bson::Bson;

use super::id_text;

/// A batch was refused before anything was sent: nothing of it was
/// written, no hook ran, every `Doc` keeps its changes.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct BatchError {
    /// The collection of the model the batch was given to.
    pub collection: String,
    /// Position (0-based, in the order given) of the first `Doc` refused.
    pub position: usize,
    /// Its `_id`, when it has one.
    pub id: Option<Bson>,
    /// Why it was refused.
    pub reason: BatchRefusal,
}

/// Why a batch was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BatchRefusal {
    /// The same `_id` appears earlier in the batch (at this position): two
    /// writes of one document in one batch have no defined order.
    Repeated {
        /// Position of the first `Doc` with that `_id`.
        first: usize,
    },
    /// The `Doc` belongs to another collection (this namespace,
    /// `database.collection`).
    OtherCollection {
        /// The namespace of the `Doc`'s model.
        namespace: String,
    },
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "batch for collection \"{}\" refused, nothing was sent: the document at position {}",
            self.collection, self.position
        )?;
        if let Some(id) = &self.id {
            write!(f, " (id \"{}\")", id_text(id))?;
        }
        match &self.reason {
            BatchRefusal::Repeated { first } => {
                write!(f, " has the same _id as the one at position {first}")
            }
            BatchRefusal::OtherCollection { namespace } => {
                write!(f, " belongs to another collection, \"{namespace}\"")
            }
        }
    }
}

impl std::error::Error for BatchError {}
