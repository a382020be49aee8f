//! Typed filters: `User::fields().age().gte(18)` is `{ age: { $gte: 18 } }`,
//! its value checked against the field's type at compile time.

use mongodb::bson::{Bson, Document};

use super::value::{Encoded, Seq, Value};
use crate::fields::{FieldPath, Fields, Prefix, Root};

/// The key a filter or an update whose value could not be encoded sends
/// instead: the server refuses an unknown top-level operator, so nothing
/// matches and nothing is written, and its error names this key.
pub(crate) const UNENCODABLE: &str = "$odmUnencodableValue";

/// A query filter built from typed paths; converts into a `bson::Document`
/// (`Into`), and a `bson::Document` converts into one, so the two compose:
///
/// ```
/// use odm::prelude::*;
/// use odm::typed::Filter;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Serialize, Deserialize, Document)]
/// # struct User { #[serde(rename = "_id")] id: ObjectId, age: u32, status: String, tags: Vec<String> }
///
/// let f = User::fields();
/// let adults: Filter = f.age().gte(18).and(f.status().is_in(["ACTIVE", "PENDING"]));
/// assert_eq!(
///     bson::Document::from(adults),
///     doc! { "age": { "$gte": 18_i64 }, "status": { "$in": ["ACTIVE", "PENDING"] } }
/// );
/// let raw_too = f.tags().contains("rust").and(doc! { "$where": "true" });
/// assert_eq!(
///     bson::Document::from(raw_too),
///     doc! { "$and": [{ "tags": "rust" }, { "$where": "true" }] }
/// );
/// # use odm::bson;
/// ```
///
/// A value serde cannot encode (a `u64` above `i64::MAX`) makes the filter
/// one the server refuses (an unknown operator, `$odmUnencodableValue`,
/// holding the reason): such a filter matches nothing and writes nothing.
#[derive(Clone, Debug, Default, PartialEq)]
#[must_use = "a filter does nothing until it is passed to a query"]
pub struct Filter {
    doc: Document,
    error: Option<String>,
}

impl Filter {
    /// The filter matching every document: `{}`.
    pub fn all() -> Filter {
        Filter::default()
    }

    /// The filter `{ path: { op: value } }` (or `{ path: value }` for
    /// `$eq` on a value that is not a document).
    pub(crate) fn condition(path: &str, op: &str, value: Encoded) -> Filter {
        match value {
            Ok(value) => {
                let inner = match (op, value) {
                    ("$eq", value) if !matches!(value, Bson::Document(_)) => value,
                    (op, value) => {
                        let mut d = Document::new();
                        d.insert(op, value);
                        Bson::Document(d)
                    }
                };
                let mut doc = Document::new();
                doc.insert(path, inner);
                Filter { doc, error: None }
            }
            Err(reason) => Filter::unencodable(path, reason),
        }
    }

    pub(crate) fn unencodable(path: &str, reason: String) -> Filter {
        Filter {
            doc: Document::new(),
            error: Some(format!("the value for `{path}`: {reason}")),
        }
    }

    /// Both this filter and `other`. Conditions on different fields are
    /// merged into one document; otherwise `{ $and: [..] }`.
    pub fn and(self, other: impl Into<Filter>) -> Filter {
        let other = other.into();
        let error = self.error.clone().or_else(|| other.error.clone());
        if self.doc.is_empty() {
            return Filter { error, ..other };
        }
        if other.doc.is_empty() {
            return Filter { error, ..self };
        }
        let plain = |d: &Document| d.keys().all(|k| !k.starts_with('$'));
        let disjoint = other.doc.keys().all(|k| !self.doc.contains_key(k));
        if plain(&self.doc) && plain(&other.doc) && disjoint {
            let mut doc = self.doc;
            doc.extend(other.doc);
            return Filter { doc, error };
        }
        Filter::list("$and", self, other, error)
    }

    /// This filter or `other`: `{ $or: [..] }`.
    pub fn or(self, other: impl Into<Filter>) -> Filter {
        let other = other.into();
        let error = self.error.clone().or_else(|| other.error.clone());
        Filter::list("$or", self, other, error)
    }

    /// Neither this filter nor `other`: `{ $nor: [..] }`.
    pub fn nor(self, other: impl Into<Filter>) -> Filter {
        let other = other.into();
        let error = self.error.clone().or_else(|| other.error.clone());
        Filter::list("$nor", self, other, error)
    }

    /// Every document this filter does not match: `{ $nor: [filter] }`
    /// (a document missing the field matches, as with MongoDB's `$not`).
    /// `!filter` is the same.
    #[allow(clippy::should_implement_trait)] // it is implemented too
    pub fn not(self) -> Filter {
        let mut doc = Document::new();
        doc.insert("$nor", vec![Bson::Document(self.doc)]);
        Filter {
            doc,
            error: self.error,
        }
    }

    /// `{ op: [a.., b..] }`, continuing `a` when it is already such a list.
    fn list(op: &str, a: Filter, b: Filter, error: Option<String>) -> Filter {
        let mut items = match a.doc.get_array(op) {
            Ok(items) if a.doc.len() == 1 => items.clone(),
            _ => vec![Bson::Document(a.doc)],
        };
        items.push(Bson::Document(b.doc));
        let mut doc = Document::new();
        doc.insert(op, items);
        Filter { doc, error }
    }

    /// The filter document (the refused operator when a value could not be
    /// encoded).
    pub fn to_document(&self) -> Document {
        match &self.error {
            None => self.doc.clone(),
            Some(reason) => unencodable_doc(reason),
        }
    }
}

pub(crate) fn unencodable_doc(reason: &str) -> Document {
    let mut doc = Document::new();
    doc.insert(UNENCODABLE, reason);
    doc
}

impl std::ops::Not for Filter {
    type Output = Filter;

    fn not(self) -> Filter {
        Filter::not(self)
    }
}

impl From<Document> for Filter {
    fn from(doc: Document) -> Filter {
        Filter { doc, error: None }
    }
}

impl From<Filter> for Document {
    fn from(filter: Filter) -> Document {
        match filter.error {
            None => filter.doc,
            Some(reason) => unencodable_doc(&reason),
        }
    }
}

fn values<F, I>(values: I) -> Encoded
where
    I: IntoIterator,
    I::Item: Value<F>,
{
    let items: Result<Vec<Bson>, String> = values.into_iter().map(Value::encode).collect();
    items.map(Bson::Array)
}

/// Comparison filters, on every path. The value is checked against the
/// field's type (see [`Value`]).
impl<T, P: Prefix> FieldPath<T, P> {
    /// Equal to `value`: `{ path: value }`. On an array field, an element
    /// equal to `value`, or the whole array equal to a `Vec`.
    pub fn eq<V: Value<T>>(self, value: V) -> Filter {
        Filter::condition(P::PATH, "$eq", value.encode())
    }

    /// Not equal to `value` (a document without the field matches).
    pub fn ne<V: Value<T>>(self, value: V) -> Filter {
        Filter::condition(P::PATH, "$ne", value.encode())
    }

    /// Greater than `value`.
    pub fn gt<V: Value<T>>(self, value: V) -> Filter {
        Filter::condition(P::PATH, "$gt", value.encode())
    }

    /// Greater than or equal to `value`.
    pub fn gte<V: Value<T>>(self, value: V) -> Filter {
        Filter::condition(P::PATH, "$gte", value.encode())
    }

    /// Less than `value`.
    pub fn lt<V: Value<T>>(self, value: V) -> Filter {
        Filter::condition(P::PATH, "$lt", value.encode())
    }

    /// Less than or equal to `value`.
    pub fn lte<V: Value<T>>(self, value: V) -> Filter {
        Filter::condition(P::PATH, "$lte", value.encode())
    }

    /// Equal to one of `values`: `$in`.
    pub fn is_in<I>(self, values: I) -> Filter
    where
        I: IntoIterator,
        I::Item: Value<T>,
    {
        Filter::condition(P::PATH, "$in", self::values(values))
    }

    /// Equal to none of `values`: `$nin`.
    pub fn not_in<I>(self, values: I) -> Filter
    where
        I: IntoIterator,
        I::Item: Value<T>,
    {
        Filter::condition(P::PATH, "$nin", self::values(values))
    }

    /// The field is present (`true`) or absent (`false`): `$exists`. A
    /// field stored as null is present.
    pub fn exists(self, present: bool) -> Filter {
        Filter::condition(P::PATH, "$exists", Ok(Bson::Boolean(present)))
    }
}

/// Array filters, on paths of `Vec`, `VecDeque`, sets and arrays (and an
/// `Option` of one), taking the element type.
impl<T: Seq, P: Prefix> FieldPath<T, P> {
    /// An element equals `value`.
    pub fn contains<V: Value<T::Elem>>(self, value: V) -> Filter {
        Filter::condition(P::PATH, "$eq", value.encode())
    }

    /// Every one of `values` is an element: `$all`.
    pub fn all<I>(self, values: I) -> Filter
    where
        I: IntoIterator,
        I::Item: Value<T::Elem>,
    {
        Filter::condition(P::PATH, "$all", self::values(values))
    }

    /// Exactly `len` elements: `$size`.
    pub fn size(self, len: usize) -> Filter {
        let len = i64::try_from(len).map_err(|e| e.to_string());
        Filter::condition(P::PATH, "$size", len.map(Bson::Int64))
    }

    /// One element matches `condition` as a whole: `$elemMatch`. For
    /// elements that are sub-documents the condition is written with the
    /// element type's own paths (`Comment::fields().likes().gt(3)`, relative
    /// to the element), or see [`elem_match_with`](Self::elem_match_with);
    /// for scalar elements, with operators (`doc! { "$gte": 1, "$lt": 5 }`).
    pub fn elem_match(self, condition: impl Into<Filter>) -> Filter {
        let condition = condition.into();
        let error = condition.error.clone();
        let mut filter =
            Filter::condition(P::PATH, "$elemMatch", Ok(Bson::Document(condition.doc)));
        filter.error = filter.error.or(error);
        filter
    }

    /// [`elem_match`](Self::elem_match) with the condition written on the
    /// element's paths: `f.comments().elem_match_with(|c| c.likes().gt(3))`.
    pub fn elem_match_with<F, R>(self, condition: F) -> Filter
    where
        T::Elem: Fields,
        F: FnOnce(&'static <T::Elem as Fields>::Paths<Root>) -> R,
        R: Into<Filter>,
    {
        self.elem_match(condition(<T::Elem as Fields>::fields()))
    }
}

#[cfg(test)]
mod tests;
