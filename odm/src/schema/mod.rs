//! What `#[derive(Document)]` fills in for a model type: the [`Meta`]
//! record and the per-type code the generic runtime calls ([`Schema`]).
//! Below the user's surface: nothing here knows `Model` or `Doc`.

pub(crate) mod hook_context;
pub(crate) mod index_kinds;
pub(crate) mod index_server;
pub(crate) mod index_spec;
pub(crate) mod kind;
pub(crate) mod meta;

use std::future::Future;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::codec::Layout;
use crate::error::{Result, ValidationErrors};
pub use hook_context::HookContext;
use meta::Meta;

/// What a load of model `T` needs beside the value's type: the keys it
/// hides from the value, and the schema version it upgrades older
/// documents to, with the model's steps.
pub(crate) fn layout<T: Schema>() -> Layout {
    let meta = T::__odm_meta();
    Layout {
        hidden: meta.hidden(),
        schema: meta.schema.map(|s| crate::codec::upgrade::Steps {
            key: s.key,
            current: s.current,
            migrate: T::__odm_migrate,
        }),
    }
}

/// The per-type code `#[derive(Document)]` writes, which the generic
/// runtime calls; the public [`Document`](crate::Document) trait extends it.
/// Not public API: derive `Document` instead of implementing it.
#[doc(hidden)]
pub trait Schema: Serialize + DeserializeOwned + Send + Sync + Unpin + 'static {
    /// What the derive recorded: collection, version key, field names.
    #[doc(hidden)]
    fn __odm_meta() -> &'static Meta;

    /// The stored names of the top-level fields [`__odm_unchanged`]
    /// compares, in declaration order (bit `i` is `names[i]`); empty when
    /// none is compared. The derive gives them.
    ///
    /// [`__odm_unchanged`]: Schema::__odm_unchanged
    #[doc(hidden)]
    fn __odm_tracked() -> &'static [&'static str] {
        &[]
    }

    /// Whether a save compares any field of the model (a field whose type
    /// is `codec::same::Same`); the answer does not depend on the value.
    #[doc(hidden)]
    fn __odm_compares(&self) -> bool {
        false
    }

    /// The fields (bits, in [`__odm_tracked`](Schema::__odm_tracked)
    /// order) whose types change only through `&mut`
    /// (`codec::same::Same::__odm_sealed`): a field of them that
    /// `Doc::field_mut` did not reach since the snapshot is unchanged.
    #[doc(hidden)]
    fn __odm_sealed() -> u128 {
        0
    }

    /// The fields (bits, in [`__odm_tracked`](Schema::__odm_tracked)
    /// order) serde writes as the value's own serialization (no
    /// `serialize_with`): a sequence among them is written one element
    /// after the other, so one appended to (`Doc::push`) keeps its stored
    /// elements as the first ones.
    #[doc(hidden)]
    fn __odm_in_order() -> u128 {
        0
    }

    /// Writes the elements after the first `from` of the field `field`
    /// (its bit, in [`__odm_tracked`](Schema::__odm_tracked) order) into
    /// `out`, as its serialization writes them (`codec::tail`): `None`
    /// when the field's type cannot, `Some(false)` when writing failed.
    #[doc(hidden)]
    fn __odm_tail(
        &self,
        _field: usize,
        _from: usize,
        _out: &mut crate::codec::tail::TailOut<'_>,
    ) -> Option<bool> {
        None
    }

    /// A copy of the value, when its type is `Clone`: what later values
    /// are compared with, field by field (see `model::shadow`).
    #[doc(hidden)]
    fn __odm_shadow(&self) -> Option<Box<Self>> {
        None
    }

    /// Adds to `out` the fields of `only` (bits, in [`__odm_tracked`]
    /// order) in which `self` is the same as `shadow`, part for part
    /// (`codec::same::Same`), and the sequences whose first elements are;
    /// a field whose type cannot tell is never the same.
    ///
    /// [`__odm_tracked`]: Schema::__odm_tracked
    #[doc(hidden)]
    fn __odm_unchanged(
        &self,
        _shadow: &Self,
        _only: u128,
        _out: &mut crate::codec::same::Unchanged,
    ) {
    }

    /// Makes `shadow` the same as `self` in each field not in `known`
    /// (as [`__odm_unchanged`](Schema::__odm_unchanged) found it, its
    /// prefixes included); returns `known.fields` and the fields that are
    /// now the same.
    #[doc(hidden)]
    fn __odm_reshadow(&self, _shadow: &mut Self, known: &crate::codec::same::Unchanged) -> u128 {
        known.fields
    }

    /// Runs every declared validator, collecting all failures.
    #[doc(hidden)]
    fn __odm_validate(&self, _errors: &mut ValidationErrors) {}

    /// Runs the rules of the stored top-level field `name` on `value` (a
    /// value a set-based write would store there), deserialized into the
    /// field's type; `false` when the model has no rules for that field.
    #[doc(hidden)]
    fn __odm_validate_field(
        _name: &str,
        _value: &mongodb::bson::Bson,
        _errors: &mut ValidationErrors,
    ) -> bool {
        false
    }

    /// One step of the model's `migrate` (`#[odm(schema_version = N,
    /// migrate = path)]`): upgrades a stored document from schema version
    /// `from` to `from + 1`.
    #[doc(hidden)]
    fn __odm_migrate(
        _doc: &mut mongodb::bson::Document,
        from: u32,
    ) -> Result<(), crate::error::MigrationError> {
        Err(crate::error::MigrationError::new(format!(
            "the model declares no step from schema version {from}"
        )))
    }

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

    /// Decodes a stored document (`bytes`, odm's `skip` keys hidden) on the
    /// fast path of `codec::rawde`; `None` leaves it to `bson`, whose
    /// result it equals. An enum model's derive decodes the newtype
    /// variant its stored kind names (`schema::kind`).
    #[doc(hidden)]
    fn __odm_fast_decode<'a>(
        bytes: &'a [u8],
        skip: crate::codec::Hidden,
    ) -> Option<(Self, crate::codec::rawde::Seen<'a>)> {
        crate::codec::rawde::from_slice_seeing(bytes, skip)
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
}
