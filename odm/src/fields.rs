//! Typed field paths: `User::fields().email()` instead of `"email"`.
//!
//! `#[derive(Document)]` gives a model a [`Fields`] impl; an embedded
//! struct gets one with `#[derive(Fields)]`. [`Fields::fields`] returns
//! one accessor per stored field, named like the Rust field; each returns
//! a [`FieldPath`], the BSON path of the field with serde's `rename` and
//! `rename_all` applied. A misspelled field is a compile error.
//!
//! ```
//! use odm::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Fields)]
//! #[serde(rename_all = "camelCase")]
//! pub struct Comment {
//!     pub text: String,
//!     pub written_by: String,
//! }
//!
//! #[derive(Serialize, Deserialize, Document)]
//! pub struct Post {
//!     #[serde(rename = "_id")]
//!     pub id: ObjectId,
//!     #[serde(rename = "headline")]
//!     pub title: String,
//!     pub comments: Vec<Comment>,
//!     pub pinned: Option<Comment>,
//! }
//!
//! assert_eq!(Post::fields().id().as_str(), "_id");
//! assert_eq!(Post::fields().title().as_str(), "headline");
//! // Through a Vec, an Option, or the struct itself:
//! assert_eq!(Post::fields().comments().as_str(), "comments");
//! assert_eq!(Post::fields().comments().written_by().as_str(), "comments.writtenBy");
//! assert_eq!(Post::fields().pinned().text().as_str(), "pinned.text");
//!
//! // A path is a `&'static str` wherever a key goes: filters, sorts, updates.
//! let filter = doc! { Post::fields().comments().text(): "first!" };
//! assert_eq!(filter, doc! { "comments.text": "first!" });
//! ```
//!
//! A field reaches the paths of its type when that type is a struct with a
//! [`Fields`] impl, or a `Vec`, `VecDeque`, array or `Option` of one.
//! Other types (strings, numbers, maps, `Box`) end the path: a map's keys
//! are data, not fields. A `#[serde(flatten)]` field's accessor returns a
//! [`Flattened`], which has no path of its own but leads to the flattened
//! struct's fields, stored at the level of the parent
//! (`Order::fields().address().city()` is `"city"`). A `#[serde(skip)]`
//! field has no accessor. Generic structs get their paths too; a struct
//! with lifetime parameters does not.
//!
//! Index keys are written in the derive (`#[odm(index(keys(email = 1)))]`)
//! with Rust field names, checked at compile time the same way.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

/// A type whose stored fields have typed paths: derived by
/// `#[derive(Document)]`, and by `#[derive(Fields)]` for embedded structs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no typed field paths",
    label = "`{Self}` has no field paths to go into",
    note = "derive `odm::Fields` (or `odm::Document`) on a struct to give it paths; \
            a `Vec`, `VecDeque`, array or `Option` of such a struct has them too"
)]
pub trait Fields {
    /// The accessors, one method per stored field, under the path `P`.
    #[doc(hidden)]
    type Paths<P: Prefix>: PathSet;

    /// The typed paths of this type's fields: `User::fields().email()`.
    fn fields() -> &'static Self::Paths<Root> {
        <Self::Paths<Root> as PathSet>::REF
    }
}

/// The path of one field of type `T`: what an accessor of
/// [`Fields::fields`] returns.
///
/// [`as_str`](Self::as_str) gives the dotted BSON path, a `&'static str`
/// computed at compile time. When `T` (or the element of a `Vec`,
/// `VecDeque`, array or `Option` `T`) has [`Fields`], the accessors of its
/// fields are available on the path too, through `Deref`:
/// `Post::fields().comments().text()` is `"comments.text"`.
///
/// It converts into a `String` (so it is a key of `doc!` as it is), and
/// displays and compares as its path.
pub struct FieldPath<T, P> {
    _marker: PhantomData<fn() -> (T, P)>,
}

impl<T, P: Prefix> FieldPath<T, P> {
    /// The dotted BSON path: `"comments.text"`.
    pub const fn as_str(&self) -> &'static str {
        P::PATH
    }
}

impl<T, P: Prefix> fmt::Display for FieldPath<T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(P::PATH)
    }
}

impl<T, P: Prefix> fmt::Debug for FieldPath<T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("FieldPath").field(&P::PATH).finish()
    }
}

impl<T, P: Prefix> AsRef<str> for FieldPath<T, P> {
    fn as_ref(&self) -> &str {
        P::PATH
    }
}

impl<T, P: Prefix> From<FieldPath<T, P>> for String {
    fn from(_: FieldPath<T, P>) -> String {
        P::PATH.to_string()
    }
}

impl<T, P: Prefix> PartialEq<str> for FieldPath<T, P> {
    fn eq(&self, other: &str) -> bool {
        P::PATH == other
    }
}

impl<T, P: Prefix> PartialEq<&str> for FieldPath<T, P> {
    fn eq(&self, other: &&str) -> bool {
        P::PATH == *other
    }
}

/// What the accessor of a `#[serde(flatten)]` field returns: no path of
/// its own (its fields are stored in the parent), but the accessors of the
/// flattened struct's fields, at the parent's level, through `Deref`.
pub struct Flattened<T, P> {
    _marker: PhantomData<fn() -> (T, P)>,
}

/// What [`FieldPath`] and [`Flattened`] share: both are zero-sized steps
/// of a path, which lead to the fields of `T` (when it has them) under `P`.
macro_rules! step_impls {
    ($step:ident) => {
        impl<T, P: Prefix> $step<T, P> {
            #[doc(hidden)]
            pub const NEW: Self = $step {
                _marker: PhantomData,
            };
        }

        impl<T, P> Clone for $step<T, P> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<T, P> Copy for $step<T, P> {}

        impl<T: Nest, P: Prefix> Deref for $step<T, P> {
            type Target = <T::Elem as Fields>::Paths<P>;

            fn deref(&self) -> &Self::Target {
                <Self::Target as PathSet>::REF
            }
        }

        impl<T, P: Prefix> Step for $step<T, P> {
            const PATH: &'static str = P::PATH;
        }

        impl<T: Nest, P: Prefix> Descend for $step<T, P> {
            type Sub = <T::Elem as Fields>::Paths<P>;
        }

        impl<T: MapOf, P: Prefix> DescendMap for $step<T, P> {
            type Sub = <T::Elem as Fields>::Paths<Root>;
        }
    };
}

step_impls!(FieldPath);
step_impls!(Flattened);

impl<T, P: Prefix> fmt::Debug for Flattened<T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Flattened").field(&P::PATH).finish()
    }
}

// The machinery below is named by generated code only.

/// The path a set of accessors sits under, as a type, so that every path
/// is a constant.
#[doc(hidden)]
pub trait Prefix: 'static {
    /// The dotted path; empty at the root.
    const PATH: &'static str;
}

/// The document's root: no prefix.
#[doc(hidden)]
pub enum Root {}

impl Prefix for Root {
    const PATH: &'static str = "";
}

/// One field's BSON name, as a type (the derive makes one per field).
#[doc(hidden)]
pub trait Segment: 'static {
    /// The BSON name, after serde's renames.
    const NAME: &'static str;
}

/// `P` followed by the field `S`.
#[doc(hidden)]
pub struct Join<P, S>(PhantomData<fn() -> (P, S)>);

impl<P: Prefix, S: Segment> Join<P, S> {
    const JOINED: Joined = Joined::new(&[P::PATH, S::NAME]);
    const JOINED_REF: &'static Joined = &Self::JOINED;
}

impl<P: Prefix, S: Segment> Prefix for Join<P, S> {
    const PATH: &'static str = if P::PATH.is_empty() {
        S::NAME
    } else {
        Self::JOINED_REF.as_str()
    };
}

/// A set of accessors (the struct the derive generates), reachable as a
/// constant reference.
#[doc(hidden)]
pub trait PathSet: 'static {
    /// The accessors; a zero-sized value.
    const REF: &'static Self;
}

/// Types whose paths continue into a struct with [`Fields`]: the struct,
/// and a `Vec`, `VecDeque`, array or `Option` of one. (An unmet bound ends
/// at `Fields`, whose message says what to derive.)
#[doc(hidden)]
pub trait Nest {
    /// The struct the paths continue into.
    type Elem: Fields;
}

impl<T: Fields> Nest for T {
    type Elem = T;
}

impl<T: Nest> Nest for Option<T> {
    type Elem = T::Elem;
}

impl<T: Nest> Nest for Vec<T> {
    type Elem = T::Elem;
}

impl<T: Nest> Nest for std::collections::VecDeque<T> {
    type Elem = T::Elem;
}

impl<T: Nest, const N: usize> Nest for [T; N] {
    type Elem = T::Elem;
}

/// Maps whose values have paths: a listed path goes on after a key
/// (`prefs."dark".enabled`). An `Option` of one too.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a map whose values have typed field paths",
    label = "no field of a map value to name here",
    note = "after a map key only the fields of a map value deriving `odm::Fields` can follow; \
            quote a segment (`\"name\"`) to write it unchecked"
)]
pub trait MapOf {
    /// The struct of the values.
    type Elem: Fields;
}

impl<K, V: Nest, S> MapOf for std::collections::HashMap<K, V, S> {
    type Elem = V::Elem;
}

impl<K, V: Nest> MapOf for std::collections::BTreeMap<K, V> {
    type Elem = V::Elem;
}

impl<M: MapOf> MapOf for Option<M> {
    type Elem = M::Elem;
}

/// [`FieldPath`] and [`Flattened`]: a step of a path written in an
/// attribute, which the next segment goes into.
#[doc(hidden)]
pub trait Step {
    /// The path the step leads to (for a flattened field, its parent's).
    const PATH: &'static str;
}

/// A step whose field's type has [`Fields`] (through [`Nest`]).
#[doc(hidden)]
pub trait Descend {
    /// The accessors of the fields under the step.
    type Sub: PathSet;
}

/// A step whose field is a map of values with [`Fields`].
#[doc(hidden)]
pub trait DescendMap {
    /// The accessors of the fields of one value, relative to it.
    type Sub: PathSet;
}

/// The accessors of a type, at the root.
#[doc(hidden)]
pub const fn root<T: Fields>() -> &'static T::Paths<Root> {
    <T::Paths<Root> as PathSet>::REF
}

/// The path of a step, as a constant.
#[doc(hidden)]
pub const fn path<S: Step>(_: &S) -> &'static str {
    S::PATH
}

/// The accessors of the fields under a step.
#[doc(hidden)]
pub const fn sub<S: Descend>(_: &S) -> &'static S::Sub {
    S::Sub::REF
}

/// The accessors of the values of the map at a step, relative to one value.
#[doc(hidden)]
pub const fn map_value<S: DescendMap>(_: &S) -> &'static S::Sub {
    S::Sub::REF
}

/// The longest path [`Joined`] holds, in bytes.
const CAPACITY: usize = 512;

/// Dotted paths joined at compile time, in a fixed buffer (constant
/// evaluation cannot allocate).
#[doc(hidden)]
pub struct Joined {
    bytes: [u8; CAPACITY],
    len: usize,
}

impl Joined {
    /// The non-empty `parts` joined by `.`; fails to compile when longer
    /// than the buffer.
    pub const fn new(parts: &[&str]) -> Joined {
        let mut bytes = [0u8; CAPACITY];
        let mut len = 0;
        let mut i = 0;
        while i < parts.len() {
            let part = parts[i].as_bytes();
            i += 1;
            if part.is_empty() {
                continue;
            }
            if len > 0 {
                assert!(len < CAPACITY, "a field path is longer than 512 bytes");
                bytes[len] = b'.';
                len += 1;
            }
            assert!(
                part.len() <= CAPACITY - len,
                "a field path is longer than 512 bytes"
            );
            let mut j = 0;
            while j < part.len() {
                bytes[len + j] = part[j];
                j += 1;
            }
            len += part.len();
        }
        Joined { bytes, len }
    }

    /// The joined path.
    pub const fn as_str(&'static self) -> &'static str {
        let (joined, _) = self.bytes.split_at(self.len);
        match std::str::from_utf8(joined) {
            Ok(path) => path,
            // Whole `&str`s joined by `.` are UTF-8.
            Err(_) => panic!("a joined path is UTF-8"),
        }
    }
}

#[cfg(test)]
mod tests;
