//! Typed sorts: `User::fields().created_at().desc()`.

use mongodb::bson::Document;

use crate::fields::{FieldPath, Prefix};

/// A sort order built from typed paths, keys in the order given; converts
/// into a `bson::Document` (`Into`), as [`Find::sort`](crate::Find::sort)
/// and [`FindOne::sort`](crate::FindOne::sort) take it:
///
/// ```
/// use odm::prelude::*;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Serialize, Deserialize, Document)]
/// # struct User { #[serde(rename = "_id")] id: ObjectId, age: u32, name: String }
///
/// let f = User::fields();
/// let order = f.age().desc().then(f.name().asc());
/// assert_eq!(odm::bson::Document::from(order), doc! { "age": -1, "name": 1 });
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[must_use = "a sort does nothing until it is passed to a query"]
pub struct Sort {
    doc: Document,
}

impl Sort {
    /// Then by `other`, for documents this order ties. A key already in
    /// the order keeps its place and takes `other`'s direction.
    pub fn then(mut self, other: impl Into<Sort>) -> Sort {
        self.doc.extend(other.into().doc);
        self
    }

    /// The same as [`then`](Sort::then).
    pub fn and(self, other: impl Into<Sort>) -> Sort {
        self.then(other)
    }

    /// The sort document.
    pub fn to_document(&self) -> Document {
        self.doc.clone()
    }
}

impl From<Document> for Sort {
    fn from(doc: Document) -> Sort {
        Sort { doc }
    }
}

impl From<Sort> for Document {
    fn from(sort: Sort) -> Document {
        sort.doc
    }
}

impl<T, P: Prefix> FieldPath<T, P> {
    /// Ascending on this field: `{ path: 1 }`.
    pub fn asc(self) -> Sort {
        let mut doc = Document::new();
        doc.insert(P::PATH, 1);
        Sort { doc }
    }

    /// Descending on this field: `{ path: -1 }`.
    pub fn desc(self) -> Sort {
        let mut doc = Document::new();
        doc.insert(P::PATH, -1);
        Sort { doc }
    }
}
