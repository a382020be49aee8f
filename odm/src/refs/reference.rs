//! [`Ref<T>`]: a typed link to a document of model `T`, stored as the
//! target's `_id` and nothing else.

use std::any::{Any, TypeId};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use mongodb::bson::oid::ObjectId;
use mongodb::bson::Bson;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::linked::Linked;
use crate::error::{Error, Result};
use crate::model::doc::Doc;

/// A reference to a document of model `T`: a field type stored as the
/// target's `_id`, in the id's own BSON type (an `ObjectId` stays an
/// `ObjectId`), so documents written by other code (Mongoose's `ObjectId`
/// refs) load as they are.
///
/// ```
/// use odm::prelude::*;
/// # use serde::{Deserialize, Serialize};
/// #[derive(Debug, Clone, Serialize, Deserialize, Document)]
/// #[odm(collection = "users")]
/// pub struct User {
///     #[serde(rename = "_id")]
///     pub id: ObjectId,
///     pub name: String,
/// }
///
/// #[derive(Debug, Clone, Serialize, Deserialize, Document)]
/// #[odm(collection = "posts")]
/// pub struct Post {
///     #[serde(rename = "_id")]
///     pub id: ObjectId,
///     pub author: Ref<User>,
///     pub reviewers: Vec<Ref<User>>,
/// }
///
/// let ann = User { id: ObjectId::new(), name: "Ann".into() };
/// let by_id: Ref<User> = Ref::new(ann.id);
/// let by_value: Ref<User> = Ref::from(&ann);
/// assert_eq!(by_id, by_value);
/// assert_eq!(by_id.id(), &Bson::ObjectId(ann.id));
///
/// // In a typed filter of its field, a list, a sub-document:
/// let f = Post::fields();
/// assert_eq!(
///     bson::Document::from(f.author().eq(&by_id).or(f.reviewers().contains(&by_id))),
///     doc! { "$or": [{ "author": ann.id }, { "reviewers": ann.id }] },
/// );
/// # use odm::bson::{self, Bson};
/// ```
///
/// Two refs are equal, and hash alike, when their ids are the same value
/// as MongoDB matches `_id`s: an `Int32` and an `Int64` of the same number
/// are one id. A `Ref` is built from an id of the target's id type
/// ([`Ref::new`]: another type does not compile), from a document of the
/// target model ([`From`]), or loaded: a stored reference of another BSON
/// type fails the load with [`Error::Deserialize`] naming the field.
pub struct Ref<T> {
    id: Bson,
    _target: PhantomData<fn() -> T>,
}

impl<T: Linked> Ref<T> {
    /// A reference to the document of `T` whose `_id` is `id`: a value of
    /// `T`'s id type (or anything that serializes as one: `&str` for a
    /// `String` id, an `ObjectId` for an `Option<ObjectId>` id).
    ///
    /// # Panics
    ///
    /// When `id` has no BSON form (a `u64` above `i64::MAX`); see
    /// [`try_new`](Ref::try_new).
    pub fn new(id: impl IdOf<T::Id>) -> Ref<T> {
        match Ref::try_new(id) {
            Ok(r) => r,
            Err(e) => panic!("Ref::new: {e}"),
        }
    }

    /// [`new`](Ref::new), or [`Error::Serialize`] when `id` has no BSON
    /// form.
    pub fn try_new(id: impl IdOf<T::Id>) -> Result<Ref<T>> {
        Ok(Ref::from_bson(id.into_bson()?))
    }
}

impl<T> Ref<T> {
    /// The target's `_id`, as stored.
    pub fn id(&self) -> &Bson {
        &self.id
    }

    /// The target's `_id`, as stored.
    pub fn into_id(self) -> Bson {
        self.id
    }

    /// A reference holding `id` as it is (not checked against `T`'s id
    /// type: odm's own reads use it for ids the store gave back).
    pub(crate) fn from_bson(id: Bson) -> Ref<T> {
        Ref {
            id,
            _target: PhantomData,
        }
    }
}

/// A reference to `doc`'s stored document (its id field as it
/// serializes).
impl<T: Linked> From<&Doc<T>> for Ref<T> {
    fn from(doc: &Doc<T>) -> Ref<T> {
        let value: &T = doc;
        Ref::from(value)
    }
}

/// A reference to the document `value` is (its id field as it
/// serializes).
impl<T: Linked> From<&T> for Ref<T> {
    fn from(value: &T) -> Ref<T> {
        Ref::from_bson(id_to_bson(value.__odm_id()).unwrap_or(Bson::Null))
    }
}

/// An id of the type `I` (a model's id type): what [`Ref::new`] takes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an id of type `{I}`",
    label = "expected the target model's id type `{I}` here",
    note = "a `Ref<T>` holds the `_id` of a `T`: build it from a value of the type of `T`'s `_id` field \
            (`&str` for a `String` id), or with `Ref::from(&doc)`"
)]
pub trait IdOf<I> {
    /// The id as serde stores it.
    #[doc(hidden)]
    fn into_bson(self) -> Result<Bson>;
}

impl<I: Serialize + 'static> IdOf<I> for I {
    fn into_bson(self) -> Result<Bson> {
        id_to_bson(&self)
    }
}

impl<I: Serialize + 'static> IdOf<I> for &I {
    fn into_bson(self) -> Result<Bson> {
        id_to_bson(self)
    }
}

impl<I: Serialize + 'static> IdOf<Option<I>> for I {
    fn into_bson(self) -> Result<Bson> {
        id_to_bson(&self)
    }
}

impl IdOf<String> for &str {
    fn into_bson(self) -> Result<Bson> {
        Ok(Bson::String(self.to_string()))
    }
}

impl IdOf<Option<String>> for &str {
    fn into_bson(self) -> Result<Bson> {
        Ok(Bson::String(self.to_string()))
    }
}

/// `id` as serde stores it; the common id types directly, without a
/// round trip through `bson`'s serializer (which formats an `ObjectId`
/// as hex and parses it back).
pub(crate) fn id_to_bson<I: Serialize + 'static>(id: &I) -> Result<Bson> {
    let any: &dyn Any = id;
    if let Some(oid) = any.downcast_ref::<ObjectId>() {
        return Ok(Bson::ObjectId(*oid));
    }
    if let Some(text) = any.downcast_ref::<String>() {
        return Ok(Bson::String(text.clone()));
    }
    if let Some(n) = any.downcast_ref::<i64>() {
        return Ok(Bson::Int64(*n));
    }
    if let Some(n) = any.downcast_ref::<i32>() {
        return Ok(Bson::Int32(*n));
    }
    crate::bson_release::to_bson(id).map_err(Error::from)
}

impl<T> Clone for Ref<T> {
    fn clone(&self) -> Self {
        Ref::from_bson(self.id.clone())
    }
}

impl<T> fmt::Debug for Ref<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Ref").field(&self.id).finish()
    }
}

impl<T> PartialEq for Ref<T> {
    fn eq(&self, other: &Self) -> bool {
        match (&self.id, &other.id) {
            // The common case first, without the canonical forms.
            (Bson::ObjectId(a), Bson::ObjectId(b)) => a == b,
            (a, b) => Canon::of(a) == Canon::of(b),
        }
    }
}

impl<T> Eq for Ref<T> {}

/// One write to the hasher per id (its canonical form's bytes, without
/// the variant's tag): [`Model::find_refs`](crate::Model::find_refs)
/// hashes every ref it is given. Equal refs have equal canonical forms,
/// so equal hashes; different forms writing the same bytes only collide.
impl<T> Hash for Ref<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match &self.id {
            // The common case, without the canonical form.
            Bson::ObjectId(oid) => state.write(&oid.bytes()),
            other => match Canon::of(other) {
                Canon::ObjectId(bytes) => state.write(&bytes),
                Canon::Number(n) => state.write_i64(n),
                Canon::Double(bits) => state.write_u64(bits),
                Canon::Text(text) => state.write(text.as_bytes()),
                Canon::Null => state.write_u8(0),
                Canon::Other(bytes) => state.write(&bytes),
            },
        }
    }
}

impl<T> Serialize for Ref<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        self.id.serialize(serializer)
    }
}

/// Read as stored, then checked against `T`'s id type: the value must
/// read as one, and be stored in the type that id is stored in (numbers
/// of any width for a number), since a query for the reference matches
/// that type only. Otherwise the load fails naming the field
/// ([`Error::Deserialize`]): an `ObjectId` id referred to by its hex
/// string, say.
impl<'de, T: Linked> Deserialize<'de> for Ref<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let stored = Bson::deserialize(deserializer)?;
        if TypeId::of::<T::Id>() == TypeId::of::<ObjectId>() {
            // The common case, without a round trip through the id type.
            return match stored {
                Bson::ObjectId(_) => Ok(Ref::from_bson(stored)),
                other => Err(D::Error::custom(wrong_type(&other, "an ObjectId"))),
            };
        }
        let id: T::Id = crate::bson_release::from_bson(stored.clone()).map_err(D::Error::custom)?;
        let id = id_to_bson(&id).map_err(D::Error::custom)?;
        if !same_kind(&stored, &id) {
            return Err(D::Error::custom(wrong_type(&stored, kind(&id))));
        }
        Ok(Ref::from_bson(id))
    }
}

/// Whether `a` and `b` are stored in the same BSON type (numbers of any
/// width being one).
fn same_kind(a: &Bson, b: &Bson) -> bool {
    let number = |v: &Bson| matches!(v, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_));
    a.element_type() == b.element_type() || (number(a) && number(b))
}

/// What a stored value is, for an error text (never the value).
fn kind(value: &Bson) -> &'static str {
    match value {
        Bson::ObjectId(_) => "an ObjectId",
        Bson::String(_) => "a string",
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) => "a number",
        Bson::Null => "null",
        Bson::Boolean(_) => "a boolean",
        Bson::Document(_) => "a document",
        Bson::Array(_) => "an array",
        Bson::DateTime(_) => "a date",
        Bson::Binary(_) => "binary data",
        _ => "another BSON type",
    }
}

/// The refusal of a stored reference of the wrong type.
fn wrong_type(stored: &Bson, expected: &str) -> String {
    format!(
        "a reference is stored as {}, but its target's `_id` is stored as {expected}",
        kind(stored)
    )
}

/// An id as MongoDB compares `_id`s: numbers by value whatever their
/// width, strings and ObjectIds as they are, anything else by its BSON
/// bytes.
#[derive(PartialEq, Eq)]
enum Canon<'a> {
    Number(i64),
    Double(u64),
    Text(&'a str),
    ObjectId([u8; 12]),
    Null,
    Other(Vec<u8>),
}

impl<'a> Canon<'a> {
    fn of(id: &'a Bson) -> Canon<'a> {
        match id {
            Bson::Int32(n) => Canon::Number(i64::from(*n)),
            Bson::Int64(n) => Canon::Number(*n),
            Bson::Double(d) if d.fract() == 0.0 && d.abs() < 9.0e15 => Canon::Number(*d as i64),
            Bson::Double(d) => Canon::Double(d.to_bits()),
            Bson::String(s) => Canon::Text(s),
            Bson::ObjectId(oid) => Canon::ObjectId(oid.bytes()),
            Bson::Null => Canon::Null,
            other => Canon::Other(bytes_of(other)),
        }
    }
}

/// The BSON bytes of `value` (as the one element of a document), for the
/// ids compared by bytes.
pub(crate) fn bytes_of(value: &Bson) -> Vec<u8> {
    let mut doc = mongodb::bson::Document::new();
    doc.insert("", value.clone());
    crate::bson_release::to_raw_document_buf(&doc)
        .map(|raw| raw.into_bytes())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use mongodb::bson::doc;

    use super::*;

    struct Any;

    fn r(id: Bson) -> Ref<Any> {
        Ref::from_bson(id)
    }

    #[test]
    fn ids_compare_as_mongodb_matches_them() {
        assert_eq!(r(Bson::Int32(5)), r(Bson::Int64(5)));
        assert_eq!(r(Bson::Int64(5)), r(Bson::Double(5.0)));
        assert_ne!(r(Bson::Int64(5)), r(Bson::String("5".into())));
        assert_ne!(r(Bson::Double(5.5)), r(Bson::Int64(5)));
        let oid = ObjectId::new();
        assert_eq!(r(Bson::ObjectId(oid)), r(Bson::ObjectId(oid)));
        assert_ne!(r(Bson::ObjectId(oid)), r(Bson::ObjectId(ObjectId::new())));
        // Compound ids: by their bytes, so key order matters, as in MongoDB.
        let ab = Bson::Document(doc! { "a": 1, "b": 2 });
        let ba = Bson::Document(doc! { "b": 2, "a": 1 });
        assert_eq!(r(ab.clone()), r(ab.clone()));
        assert_ne!(r(ab.clone()), r(ba));
        let set: HashSet<Ref<Any>> = [r(Bson::Int32(1)), r(Bson::Int64(1)), r(ab.clone()), r(ab)]
            .into_iter()
            .collect();
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn equal_refs_hash_alike() {
        use std::hash::BuildHasher;
        let state = std::collections::hash_map::RandomState::new();
        let oid = ObjectId::new();
        let compound = Bson::Document(doc! { "a": 1, "b": [2, "x"] });
        let equal = [
            (Bson::ObjectId(oid), Bson::ObjectId(oid)),
            (Bson::Int32(5), Bson::Int64(5)),
            (Bson::Int64(5), Bson::Double(5.0)),
            (Bson::Double(5.5), Bson::Double(5.5)),
            (Bson::String("a".into()), Bson::String("a".into())),
            (Bson::Null, Bson::Null),
            (compound.clone(), compound),
        ];
        for (a, b) in equal {
            assert_eq!(r(a.clone()), r(b.clone()));
            assert_eq!(
                state.hash_one(r(a.clone())),
                state.hash_one(r(b.clone())),
                "{a:?} and {b:?}"
            );
        }
    }

    #[test]
    fn common_ids_skip_the_serializer_and_agree_with_it() {
        let oid = ObjectId::new();
        assert_eq!(id_to_bson(&oid).unwrap(), Bson::ObjectId(oid));
        assert_eq!(
            id_to_bson(&"a".to_string()).unwrap(),
            Bson::String("a".into())
        );
        assert_eq!(id_to_bson(&7_i64).unwrap(), Bson::Int64(7));
        assert_eq!(id_to_bson(&7_i32).unwrap(), Bson::Int32(7));
        assert_eq!(id_to_bson(&7_u32).unwrap(), Bson::Int64(7));
        assert_eq!(id_to_bson(&Some(oid)).unwrap(), Bson::ObjectId(oid));
        assert!(id_to_bson(&u64::MAX).is_err());
    }

    #[test]
    fn a_stored_ref_must_have_its_ids_type() {
        assert!(same_kind(&Bson::Int32(1), &Bson::Int64(1)));
        assert!(!same_kind(&Bson::String("1".into()), &Bson::Int64(1)));
        assert!(same_kind(
            &Bson::ObjectId(ObjectId::new()),
            &Bson::ObjectId(ObjectId::new())
        ));
        assert_eq!(
            wrong_type(&Bson::String("65a".into()), "an ObjectId"),
            "a reference is stored as a string, but its target's `_id` is stored as an ObjectId"
        );
    }

    #[test]
    fn debug_shows_the_id() {
        assert_eq!(format!("{:?}", r(Bson::Int64(3))), "Ref(Int64(3))");
    }
}
