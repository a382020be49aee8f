//! The model shapes the generator builds and changes, one file each (the
//! two nested shapes share one, as do the two kinds and the two stamped),
//! and what a shape tells the history.

use std::fmt::Debug;

use crate::save_random::generator::Rng;

mod defaults;
mod floats;
mod grids;
mod kinds;
mod maps;
mod mongoose;
mod nested;
mod option_id;
mod stamped;
mod subdocs;
mod versioned;

pub use defaults::{default_items, default_tags, Defaults, Inner};
pub use floats::{Floats, Mixed, I32};
pub use grids::Grids;
pub use kinds::{Kinds, KindsOc};
pub use maps::Maps;
pub use mongoose::MongoosePost;
pub use nested::{Nested, NestedOc};
pub use option_id::OptionId;
pub use stamped::{Stamped, StampedOc};
pub use subdocs::{Comment, SubDocs};
pub use versioned::Versioned;

/// A model shape the generator knows how to build and change.
pub trait Shape: odm::Document + Clone + Debug {
    const NAME: &'static str;
    /// The test function, for the replay hint.
    const TEST: &'static str;
    const INSERT: Insert = Insert::Create;
    /// An enum model's kind key: a save that writes it (a change of kind)
    /// must leave every field of the value stored, none left to a default.
    const KIND_KEY: Option<&'static str> = None;
    /// A `timestamps` model's two stored fields: `create` writes both, every
    /// save that writes something sets `updated` to its own time (whatever
    /// the value held), so the history checks them as stamps (`stamps.rs`).
    const STAMPS: Option<Stamps> = None;
    fn generate(rng: &mut Rng) -> Self;
    /// One random change, described.
    fn mutate(&mut self, rng: &mut Rng) -> String;
    /// The stale-rewrite pattern (issue 21), first half: an edit in place
    /// of an array element or a sub-document field (no version bump);
    /// `None` when the value has nothing to edit so.
    fn edit_in_place(&mut self, _rng: &mut Rng) -> Option<String> {
        None
    }
    /// Second half, by a copy loaded before the edit: a rewrite of the
    /// same containers (a sort, a reverse, a sub-document removed or
    /// replaced, a map saved whole).
    fn rewrite(&mut self, _rng: &mut Rng) -> Option<String> {
        None
    }
    /// The stale-element pattern (issue 35), first half: one array changed
    /// so that exactly one element ends different, written as a pop and a
    /// push or as an assignment of the whole array (the diff sends an
    /// in-place edit of that element); the description and the element.
    /// `None` when the value has no array to change so.
    fn one_element(&mut self, _rng: &mut Rng) -> Option<(String, Spot)> {
        None
    }
    /// Second half, by a copy loaded before that change: an in-place edit
    /// of the element at `spot` (of one of its fields for a sub-document).
    fn edit_element(&mut self, _spot: Spot, _rng: &mut Rng) -> Option<String> {
        None
    }
    /// For [`Insert::Older`]: the value as stored by the release of a
    /// random schema version, and that version.
    fn older(&self, _rng: &mut Rng) -> (u32, odm::bson::Document) {
        unreachable!("only a shape inserted with Insert::Older stores older versions")
    }
}

/// The stored names of a `timestamps` model's two fields.
#[derive(Clone, Copy, Debug)]
pub struct Stamps {
    pub created: &'static str,
    pub updated: &'static str,
    /// `timestamps(server_clock)`: the times are the server's.
    pub server_clock: bool,
}

/// An element of one of a shape's arrays: which array (the shape's own
/// numbering) and the index.
#[derive(Clone, Copy, Debug)]
pub struct Spot {
    pub array: usize,
    pub index: usize,
}

#[derive(Clone, Copy)]
pub enum Insert {
    /// `model.create(value)`.
    Create,
    /// Raw `insert_one` with `__v: 0`, each listed field left out at random
    /// (it is then filled by `#[serde(default)]` at load).
    RawWithout(&'static [&'static str]),
    /// `model.new_doc(value).save()` with an `Option` id that is `None`.
    NewDocWithoutId,
    /// Raw `insert_one` of the value as an older release stored it
    /// ([`Shape::older`]), with `__v: 0`: loads upgrade it.
    Older,
}
