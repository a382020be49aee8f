//! What a `Doc` remembers of the stored document, to measure its changes
//! against.

use mongodb::bson::raw::{RawDocument, RawDocumentBuf};
use mongodb::bson::Bson;

use crate::codec::offsets::Offsets;
use crate::plan::diff::Missing;

/// The state changes are measured against.
#[derive(Clone)]
pub(crate) enum Tracked {
    /// Not inserted yet.
    New,
    /// Stored, and the value is still exactly as loaded: its snapshot is
    /// taken on the first `&mut` access (`DerefMut`), so a document that is
    /// only read never serializes. `stored` is the document as read.
    Clean { id: Bson, stored: RawDocumentBuf },
    /// Stored: the value as loaded or saved, serialized, and the paths the
    /// stored document lacks (filled in by `#[serde(default)]`). `base` is
    /// the stored document as this copy knows it (without the version key
    /// and the fence), kept only where it differs from `snapshot` (fields
    /// the model does not know, another field order, another integer
    /// width): the rewrite guard compares the store with it. `offsets`
    /// are those of `snapshot`'s elements, once a patch needed them.
    Snapshot {
        id: Bson,
        snapshot: RawDocumentBuf,
        offsets: Offsets,
        missing: Missing,
        base: Option<RawDocumentBuf>,
    },
    /// Stored, but the loaded value could not be serialized to take its
    /// snapshot; a save reports this error.
    Unserializable { id: Bson, error: String },
}

impl Tracked {
    pub(crate) fn id(&self) -> Option<&Bson> {
        match self {
            Tracked::New => None,
            Tracked::Clean { id, .. }
            | Tracked::Snapshot { id, .. }
            | Tracked::Unserializable { id, .. } => Some(id),
        }
    }

    /// The snapshot, once taken.
    pub(crate) fn snapshot(&self) -> Option<&RawDocument> {
        match self {
            Tracked::Snapshot { snapshot, .. } => Some(snapshot),
            _ => None,
        }
    }
}
