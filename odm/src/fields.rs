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

pub(crate) mod machinery;
pub(crate) use machinery::*;

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

#[cfg(test)]
mod tests;
