//! [`BsonArray`]: the types `#[odm(skip_versioning)]` accepts.

use std::collections::{BTreeSet, BinaryHeap, HashSet, LinkedList, VecDeque};
use std::sync::Arc;

use mongodb::bson::RawArrayBuf;

/// A type stored as a BSON array: what `#[odm(skip_versioning)]` applies to.
///
/// Implemented for `Vec<T>`, `VecDeque<T>`, `LinkedList<T>`, the sets,
/// `BinaryHeap<T>`, `[T; N]`, `Box<[T]>`, and an `Option`, `Box` or `Arc` of
/// one. A type alias of one of them is one of them. For a newtype
/// that serde stores as an array (`#[serde(transparent)]`, or a
/// `Serialize` impl writing a sequence), implement it:
///
/// ```
/// use odm::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Debug, Clone, Default, Serialize, Deserialize)]
/// #[serde(transparent)]
/// pub struct Tags(Vec<String>);
///
/// impl odm::BsonArray for Tags {}
///
/// #[derive(Debug, Clone, Serialize, Deserialize, Document)]
/// pub struct Post {
///     #[serde(rename = "_id")]
///     pub id: ObjectId,
///     #[odm(skip_versioning)]
///     pub tags: Tags,
/// }
/// ```
///
/// The implementation is a promise about the stored form: `skip_versioning`
/// turns version checks off for every change at or under the field, so on
/// a type stored as a sub-document it would also skip the arrays inside it.
#[diagnostic::on_unimplemented(
    message = "`skip_versioning` applies to array fields only, and `{Self}` is not known to be stored as a BSON array",
    label = "this field is marked `#[odm(skip_versioning)]`",
    note = "arrays are `Vec<T>`, `VecDeque<T>`, sets, `[T; N]`, `Box<[T]>`, or an `Option` of one; \
            for a newtype stored as an array (`#[serde(transparent)]`), implement `odm::BsonArray` for it"
)]
pub trait BsonArray {}

impl<T> BsonArray for [T] {}
impl<T, const N: usize> BsonArray for [T; N] {}
impl<T> BsonArray for Vec<T> {}
impl<T> BsonArray for VecDeque<T> {}
impl<T> BsonArray for LinkedList<T> {}
impl<T, S> BsonArray for HashSet<T, S> {}
impl<T> BsonArray for BTreeSet<T> {}
impl<T> BsonArray for BinaryHeap<T> {}
impl BsonArray for RawArrayBuf {}
impl<A: BsonArray> BsonArray for Option<A> {}
impl<A: BsonArray + ?Sized> BsonArray for Box<A> {}
impl<A: BsonArray + ?Sized> BsonArray for Arc<A> {}

/// Compiles only for a [`BsonArray`]: the derive calls it for every
/// `skip_versioning` field.
pub const fn assert_array<A: BsonArray + ?Sized>() {}
