//! Validation: the [`Validate`] trait, the BSON [`Path`] every failure is
//! reported at, and the built-in checks the derives call.
//!
//! `#[derive(Document)]` and `#[derive(Validate)]` turn the `#[odm(...)]`
//! validation attributes into calls of the functions here; every check is
//! ordinary generic code. A type that derives `Document` also implements
//! [`Validate`], so a document type can be embedded in another too.
//!
//! Validators run on [`Model::create`](crate::Model::create) and on every
//! [`Doc::save`](crate::Doc::save) (insert and update), before anything is
//! sent: a failure is [`Error::Validation`](crate::Error::Validation) with
//! every failing `(path, message)`, and the `Doc` keeps its pending changes.
//! Raw access through [`Model::collection`](crate::Model::collection) is not
//! validated, and neither is loading.
//!
//! ## Attributes
//!
//! | on a field | checks | failure message |
//! |---|---|---|
//! | `validate = path` (repeatable) | `fn(&FieldType) -> Result<(), String>` | the `Err` text |
//! | `min = n`, `max = n` | a number (or `Option` of one) is within the bound; NaN fails | `must be at least n (is v)` |
//! | `min_len = n`, `max_len = n` | a string's characters, or a `Vec` / set / map's items | `must be at least n characters long (is l)`, `must have at most n items (has l)` |
//! | `one_of("A", "B")` | a string is exactly one of the choices | `must be one of "A", "B" (is "C")` |
//! | `required` | an `Option` is `Some` | `is required` |
//! | `nested` | an embedded struct's own rules | theirs, at `field.i.sub` |
//!
//! A `None` passes every built-in but `required`. On the container,
//! `validate = path` (repeatable) names a cross-field rule
//! `fn(&Self) -> Result<(), ValidationError>`; the error's path is relative
//! to the value (`""` for the value itself). Rules run in field order, each
//! field's in the order written, then the container's; all of them run, so
//! every failure is reported. Paths are BSON names, after serde renames.
//!
//! A built-in on a type it cannot apply to (`min` on a `String`,
//! `required` on a non-`Option`, a float bound on an integer field, a bound
//! out of the type's range), `min` above `max`, or a validator that is not a
//! path is a compile error at the attribute.
//!
//! ```
//! use odm::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Document)]
//! #[odm(collection = "posts", validate = Self::pinned_needs_title)]
//! #[serde(rename_all = "camelCase")]
//! struct Post {
//!     #[serde(rename = "_id")]
//!     id: i64,
//!     #[odm(min_len = 1, max_len = 80)]
//!     title: String,
//!     #[odm(one_of("draft", "public"))]
//!     state: String,
//!     #[odm(min = 0)]
//!     view_count: i64,
//!     pinned: bool,
//!     #[odm(nested)]
//!     comments: Vec<Comment>,
//! }
//!
//! #[derive(Serialize, Deserialize, Validate)]
//! struct Comment {
//!     #[odm(required)]
//!     author: Option<String>,
//!     #[odm(validate = no_shouting)]
//!     text: String,
//! }
//!
//! fn no_shouting(text: &String) -> Result<(), String> {
//!     if text.len() > 3 && text.to_uppercase() == *text {
//!         return Err("must not be all capitals".into());
//!     }
//!     Ok(())
//! }
//!
//! impl Post {
//!     fn pinned_needs_title(&self) -> Result<(), ValidationError> {
//!         if self.pinned && self.state != "public" {
//!             return Err(ValidationError::new("pinned", "only a public post can be pinned"));
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let post = Post {
//!     id: 1,
//!     title: String::new(),
//!     state: "secret".into(),
//!     view_count: -1,
//!     pinned: true,
//!     comments: vec![
//!         Comment { author: Some("ann".into()), text: "fine".into() },
//!         Comment { author: None, text: "HELLO THERE".into() },
//!     ],
//! };
//! let errors = post.validate().unwrap_err();
//! assert_eq!(
//!     errors.paths(),
//!     ["title", "state", "viewCount", "comments.1.author", "comments.1.text", "pinned"]
//! );
//! // The refused values are kept apart from the texts, which show them
//! // only when values are shown (`odm::values_shown`, off by default).
//! assert_eq!(
//!     errors.to_string(),
//!     "validation failed: title: must be at least 1 character long (is 0); \
//!      state: must be one of \"draft\", \"public\" (is ?); \
//!      viewCount: must be at least 0 (is ?); comments.1.author: is required; \
//!      comments.1.text: must not be all capitals; pinned: only a public post can be pinned"
//! );
//! assert_eq!(errors.errors()[1].value(), Some("\"secret\""));
//! ```
//!
//! ## Embedded sub-documents
//!
//! The rules of a struct stored inside a document run when the field is
//! marked `#[odm(nested)]` and the struct derives [`Validate`]
//! (`#[derive(odm::Validate)]`, with the same field and container
//! attributes as a document). The field may hold the struct itself, an
//! `Option`, a `Vec` / slice / array / `VecDeque`, a `Box`, or a map with
//! string keys of it, nested in any combination. Failures are reported with
//! the full dotted BSON path: `comments.3.text`, `profile.address.zip`,
//! `prefs.theme.color` (a map key is a path segment, as in MongoDB).
//!
//! The marker is explicit on purpose: without it the derive cannot know
//! whether a field's type has rules of its own, and a silent no-op would
//! hide a forgotten derive. With it, a type that does not implement
//! [`Validate`] is a compile error naming the fix.

pub(crate) mod builtin;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::hash::BuildHasher;
use std::rc::Rc;
use std::sync::Arc;

use crate::error::{ValidationError, ValidationErrors};

pub use builtin::{Len, Length, Num, Numeric, Optional, Text};

/// The dotted BSON path of a value inside the document being validated.
///
/// A path is a chain of borrowed segments, built on the stack while the
/// validators descend; it is turned into text only when a check fails.
#[derive(Clone, Copy)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    segment: Segment<'a>,
}

#[derive(Clone, Copy)]
enum Segment<'a> {
    Root,
    Name(&'a str),
    Index(usize),
}

impl<'a> Path<'a> {
    /// The document itself: the empty path.
    pub const ROOT: Path<'static> = Path {
        parent: None,
        segment: Segment::Root,
    };

    /// The field (or map key) `name` under this path.
    pub fn field<'b>(&'b self, name: &'b str) -> Path<'b> {
        Path {
            parent: Some(self),
            segment: Segment::Name(name),
        }
    }

    /// Element `index` of the array at this path.
    pub fn index(&self, index: usize) -> Path<'_> {
        Path {
            parent: Some(self),
            segment: Segment::Index(index),
        }
    }

    /// `true` for [`Path::ROOT`].
    pub fn is_root(&self) -> bool {
        matches!(self.segment, Segment::Root)
    }

    /// `path` (relative to this one) as a path from the document root:
    /// `comments.3` joined with `text` is `comments.3.text`.
    pub fn join(&self, path: &str) -> String {
        match (self.is_root(), path.is_empty()) {
            (true, _) => path.to_string(),
            (false, true) => self.to_string(),
            (false, false) => format!("{self}.{path}"),
        }
    }

    /// Records a failure at this path.
    pub fn fail(&self, errors: &mut ValidationErrors, message: impl Into<String>) {
        errors.push(ValidationError::new(self.to_string(), message));
    }

    /// Records a failure at this path that names the refused `value`
    /// (shown in the error's text only when values are shown, see
    /// [`values_shown`](crate::values_shown)).
    pub fn fail_with(
        &self,
        errors: &mut ValidationErrors,
        message: impl Into<String>,
        value: impl fmt::Display,
    ) {
        errors.push(ValidationError::new(self.to_string(), message).with_value(value));
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            if !parent.is_root() {
                parent.fmt(f)?;
                f.write_str(".")?;
            }
        }
        match self.segment {
            Segment::Root => Ok(()),
            Segment::Name(name) => f.write_str(name),
            Segment::Index(i) => write!(f, "{i}"),
        }
    }
}

impl fmt::Debug for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Path({:?})", self.to_string())
    }
}

/// A value whose validators can run: derive it on an embedded struct with
/// `#[derive(odm::Validate)]` and mark the field holding it
/// `#[odm(nested)]`.
///
/// Implemented for `Option`, `Vec`, slices, arrays, `VecDeque`, `Box`,
/// `Rc`, `Arc`, references, and string-keyed `HashMap` / `BTreeMap` of a
/// `Validate` type: `None` is valid, elements are validated at `path.i`,
/// map values at `path.key`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no validators to run: it does not implement `odm::Validate`",
    label = "`#[odm(nested)]` needs a type with validators",
    note = "add `#[derive(odm::Validate)]` to the embedded struct, or remove `#[odm(nested)]`"
)]
pub trait Validate {
    /// Runs every validator of this value, pushing each failure to `errors`
    /// with its path below `path`.
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors);
}

impl<T: Validate + ?Sized> Validate for &T {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        (**self).validate_at(path, errors);
    }
}

impl<T: Validate + ?Sized> Validate for Box<T> {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        (**self).validate_at(path, errors);
    }
}

impl<T: Validate + ?Sized> Validate for Rc<T> {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        (**self).validate_at(path, errors);
    }
}

impl<T: Validate + ?Sized> Validate for Arc<T> {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        (**self).validate_at(path, errors);
    }
}

impl<T: Validate> Validate for Option<T> {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        if let Some(value) = self {
            value.validate_at(path, errors);
        }
    }
}

impl<T: Validate> Validate for [T] {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        for (i, value) in self.iter().enumerate() {
            value.validate_at(&path.index(i), errors);
        }
    }
}

impl<T: Validate, const N: usize> Validate for [T; N] {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        self.as_slice().validate_at(path, errors);
    }
}

impl<T: Validate> Validate for Vec<T> {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        self.as_slice().validate_at(path, errors);
    }
}

impl<T: Validate> Validate for VecDeque<T> {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        for (i, value) in self.iter().enumerate() {
            value.validate_at(&path.index(i), errors);
        }
    }
}

impl<K: AsRef<str>, T: Validate> Validate for BTreeMap<K, T> {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        for (key, value) in self {
            value.validate_at(&path.field(key.as_ref()), errors);
        }
    }
}

/// Entries are visited in key order, so the failures come in a stable order.
impl<K: AsRef<str>, T: Validate, S: BuildHasher> Validate for HashMap<K, T, S> {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        let mut entries: Vec<(&str, &T)> = self.iter().map(|(k, v)| (k.as_ref(), v)).collect();
        entries.sort_unstable_by_key(|(k, _)| *k);
        for (key, value) in entries {
            value.validate_at(&path.field(key), errors);
        }
    }
}
