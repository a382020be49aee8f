//! What `#[derive(Document)]` records about references: each model's id
//! type, its reference fields under a rule, and the models whose rules
//! point at it. Plain data and small glue, read by the generic code of
//! this module.

use std::any::TypeId;

use mongodb::bson::Bson;
use mongodb::{ClientSession, Database};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::reference::Ref;
use crate::error::Result;
use crate::model::Document;
use crate::schema::meta::Meta;
use crate::wire::session::BoxFuture;

/// A model that can be referred to and can refer to others:
/// `#[derive(Document)]` implements it for every struct, naming the type
/// of its `_id` field ([`Ref::new`] takes that type), and recording its
/// referential rules. Not implemented by hand.
pub trait Linked: Document {
    /// The type of the field stored as `_id`.
    type Id: Serialize + DeserializeOwned + Send + Sync + 'static;

    /// The field stored as `_id`.
    #[doc(hidden)]
    fn __odm_id(&self) -> &Self::Id;

    /// This model's reference fields under a rule
    /// (`#[odm(reference(on_delete = ..))]`), in field order.
    #[doc(hidden)]
    const RULES: &'static [Rule] = &[];

    /// The models whose rules point at this one
    /// (`#[odm(referenced_by(..))]`).
    #[doc(hidden)]
    const REFERRERS: &'static [Referrer] = &[];

    /// Calls `each(i, id)` for every id the value's field under rule `i`
    /// holds, in order.
    #[doc(hidden)]
    fn __odm_refs(&self, _each: &mut dyn FnMut(usize, &Bson)) {}
}

/// What deleting a target does while documents refer to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnDelete {
    /// The delete fails with [`Error::Referenced`](crate::Error::Referenced).
    Refuse,
    /// The referring documents are deleted too (their own rules apply).
    Cascade,
    /// The reference is set to `null` (`Option<Ref<T>>` fields).
    Clear,
    /// The reference is pulled from the list (`Vec<Ref<T>>` fields).
    Pull,
}

/// How a reference field holds its ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shape {
    /// `Ref<T>`: one id.
    One,
    /// `Option<Ref<T>>`: one id or `null`.
    Optional,
    /// `Vec<Ref<T>>`: an array of ids.
    Many,
}

/// One reference field under a rule, as the derive records it.
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct Rule {
    /// The field's BSON name.
    pub path: &'static str,
    /// What deleting a target does.
    pub on_delete: OnDelete,
    /// How the field holds its ids.
    pub shape: Shape,
    /// The target model.
    pub target: fn() -> TypeId,
    /// The target model's metadata (its collection).
    pub target_meta: fn() -> &'static Meta,
}

/// The delete of targets under one rule of a referring model: checks,
/// deletes, clears or pulls the referring documents, inside the session's
/// transaction. Monomorphized for the referring model.
#[doc(hidden)]
pub type Apply = for<'a> fn(Delete<'a>) -> BoxFuture<'a, Result<()>>;

/// What [`Apply`] works on.
#[doc(hidden)]
pub struct Delete<'a> {
    pub(crate) db: &'a Database,
    /// The rule of the referring model (an index into its `RULES`).
    pub(crate) rule: usize,
    /// The target model's collection and the ids being deleted.
    pub(crate) target: &'static str,
    pub(crate) ids: &'a [Bson],
    pub(crate) session: &'a mut ClientSession,
    /// The documents this delete has reached so far (cascades stop at
    /// one already reached).
    pub(crate) reached: &'a mut super::delete::Reached,
}

/// A model whose rules point at the model listing it in
/// `referenced_by(..)`.
#[derive(Clone, Copy)]
#[doc(hidden)]
pub struct Referrer {
    /// Its reference fields under a rule.
    pub rules: &'static [Rule],
    /// Its metadata (collection, version key).
    pub meta: fn() -> &'static Meta,
    /// Applies one of its rules to a delete of targets.
    pub apply: Apply,
}

/// The entry of `A` in a target's `referenced_by(..)` list.
#[doc(hidden)]
pub const fn referrer<A: Linked>() -> Referrer {
    Referrer {
        rules: A::RULES,
        meta: A::__odm_meta,
        apply: super::delete::apply::<A>,
    }
}

/// A field type that holds references to `Target`: `Ref<T>`,
/// `Option<Ref<T>>`, `Vec<Ref<T>>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a reference field",
    label = "`#[odm(reference(..))]` needs a `Ref<T>`, `Option<Ref<T>>` or `Vec<Ref<T>>` field",
    note = "a referential rule applies to a field holding `Ref`s to the target model"
)]
#[doc(hidden)]
pub trait RefField {
    /// The model referred to.
    type Target: Linked;
    /// How the field holds its ids.
    const SHAPE: Shape;
    /// Calls `each` for every id held, in order.
    fn each_id(&self, each: &mut dyn FnMut(&Bson));
}

impl<T: Linked> RefField for Ref<T> {
    type Target = T;
    const SHAPE: Shape = Shape::One;
    fn each_id(&self, each: &mut dyn FnMut(&Bson)) {
        each(self.id());
    }
}

impl<T: Linked> RefField for Option<Ref<T>> {
    type Target = T;
    const SHAPE: Shape = Shape::Optional;
    fn each_id(&self, each: &mut dyn FnMut(&Bson)) {
        if let Some(r) = self {
            each(r.id());
        }
    }
}

impl<T: Linked> RefField for Vec<Ref<T>> {
    type Target = T;
    const SHAPE: Shape = Shape::Many;
    fn each_id(&self, each: &mut dyn FnMut(&Bson)) {
        for r in self {
            each(r.id());
        }
    }
}

/// A reference field a delete can clear: `Option<Ref<T>>`.
#[diagnostic::on_unimplemented(
    message = "`on_delete = clear` needs an `Option<Ref<T>>` field, not `{Self}`",
    label = "clearing sets the field to null, which only an `Option` can hold",
    note = "use `on_delete = pull` for a `Vec<Ref<T>>`, `refuse` or `cascade` for a `Ref<T>`"
)]
#[doc(hidden)]
pub trait Clearable: RefField {}

impl<T: Linked> Clearable for Option<Ref<T>> {}

/// A reference field a delete can pull from: `Vec<Ref<T>>`.
#[diagnostic::on_unimplemented(
    message = "`on_delete = pull` needs a `Vec<Ref<T>>` field, not `{Self}`",
    label = "pulling removes the reference from a list",
    note = "use `on_delete = clear` for an `Option<Ref<T>>`, `refuse` or `cascade` for a `Ref<T>`"
)]
#[doc(hidden)]
pub trait Pullable: RefField {}

impl<T: Linked> Pullable for Vec<Ref<T>> {}

/// `Self` lists `A` in `#[odm(referenced_by(..))]`: its deletes apply
/// `A`'s rules.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not list `{A}` in `#[odm(referenced_by(..))]`",
    label = "a rule on a reference to `{Self}`",
    note = "add `#[odm(referenced_by({A}))]` to `{Self}`, so that deleting a `{Self}` knows this rule"
)]
#[doc(hidden)]
pub trait ReferencedBy<A> {}

/// A model with referential rules (either side) is `Clone`: a write under
/// a rule runs in a transaction, which may run again after a write
/// conflict, from the `Doc`s as they were.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has referential rules, so it must be `Clone`",
    label = "derive `Clone` on `{Self}`",
    note = "a write or delete under a referential rule runs in a transaction, retried after a \
            write conflict from the value as it was before"
)]
#[doc(hidden)]
pub trait RulesClone: Clone {}

impl<T: Clone> RulesClone for T {}

/// Compile-time checks the derive calls: a rule's field type, the target
/// listing the referring model.
#[doc(hidden)]
pub const fn check_rule<F: RefField, A>()
where
    F::Target: ReferencedBy<A>,
{
}

/// `on_delete = clear` is on an `Option<Ref<T>>`.
#[doc(hidden)]
pub const fn check_clear<F: Clearable>() {}

/// `on_delete = pull` is on a `Vec<Ref<T>>`.
#[doc(hidden)]
pub const fn check_pull<F: Pullable>() {}

/// The ids under each rule of `value`, grouped by rule.
pub(crate) fn ids_of<T: Linked>(value: &T) -> Vec<Vec<Bson>> {
    let mut ids = vec![Vec::new(); T::RULES.len()];
    value.__odm_refs(&mut |rule, id| ids[rule].push(id.clone()));
    ids
}

/// The rules of `A` whose target is `T`, with their indexes.
pub(crate) fn rules_to<T: 'static>(
    rules: &'static [Rule],
) -> impl Iterator<Item = (usize, &'static Rule)> {
    rules
        .iter()
        .enumerate()
        .filter(|(_, rule)| (rule.target)() == TypeId::of::<T>())
}
