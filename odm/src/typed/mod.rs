//! Typed queries: filters, updates and sorts on the paths of
//! [`Fields::fields`](crate::Fields::fields), each value checked against
//! the field's type at compile time; and the reads that go with them
//! (`exists`, `distinct`, `estimated_count`, lean and projected finds).
//! See the guide, ["Typed queries"](crate#typed-queries).

mod distinct;
mod estimated;
mod exists;
mod filter;
mod lean;
mod lean_one;
mod sort;
mod update;
mod value;

pub use distinct::{Distinct, DistinctOf};
pub use estimated::EstimatedCount;
pub use exists::Exists;
pub use filter::Filter;
pub(crate) use lean::decode as lean_decode;
pub use lean::{Lean, LeanStream, Projected};
pub use lean_one::{LeanOne, ProjectedOne};
pub use sort::Sort;
pub use update::Update;
pub use value::{Nullable, Number, Seq, Store, Value};

/// A serde type that lists the stored fields it reads, so that
/// [`Find::projection`](crate::Find::projection) asks the server for those
/// fields only. `#[derive(Fields)]` (and `#[derive(Document)]`) implement
/// it, for structs without `#[serde(flatten)]` fields.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not list its fields for a projection",
    label = "not a projection type",
    note = "derive `odm::Fields` on the struct (structs with a `#[serde(flatten)]` field cannot list theirs)"
)]
pub trait Projection {
    /// The stored (BSON) names of the fields read, serde's renames applied.
    const FIELDS: &'static [&'static str];
}

/// The inclusion projection of `P`'s fields: `{ field: 1, .. }`.
pub(crate) fn fields_of<P: Projection>() -> mongodb::bson::Document {
    let mut fields = mongodb::bson::Document::new();
    for name in P::FIELDS {
        fields.insert(*name, 1);
    }
    fields
}
