//! Typed updates: `User::fields().status().set("EXPIRED")` is
//! `{ $set: { status: "EXPIRED" } }`, its value checked against the field's
//! type at compile time.

use mongodb::bson::{Bson, Document};

use super::filter::unencodable_doc;
use super::value::{Encoded, Nullable, Number, Seq, Store};
use crate::fields::{FieldPath, Prefix};

/// An update document built from typed paths, its operators combined with
/// [`and`](Update::and); converts into a `bson::Document` (`Into`):
///
/// ```
/// use odm::prelude::*;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Serialize, Deserialize, Document)]
/// # struct User { #[serde(rename = "_id")] id: ObjectId, logins: i32, status: String, nickname: Option<String>, tags: Vec<String> }
///
/// let f = User::fields();
/// let update = f.status().set("EXPIRED").and(f.logins().inc(1)).and(f.tags().push("expired"));
/// assert_eq!(
///     odm::bson::Document::from(update),
///     doc! { "$set": { "status": "EXPIRED" }, "$inc": { "logins": 1 }, "$push": { "tags": "expired" } }
/// );
/// ```
///
/// It is only the document: [`Model`](crate::Model)'s many-document writes
/// add the version bump themselves. As with [`Filter`](super::Filter), a
/// value serde cannot encode makes an update the server refuses.
#[derive(Clone, Debug, Default, PartialEq)]
#[must_use = "an update does nothing until it is passed to a write"]
pub struct Update {
    doc: Document,
    error: Option<String>,
}

impl Update {
    /// `{ op: { path: value } }`.
    fn op(op: &str, path: &str, value: Encoded) -> Update {
        match value {
            Ok(value) => {
                let mut inner = Document::new();
                inner.insert(path, value);
                let mut doc = Document::new();
                doc.insert(op, inner);
                Update { doc, error: None }
            }
            Err(reason) => Update {
                doc: Document::new(),
                error: Some(format!("the value for `{path}`: {reason}")),
            },
        }
    }

    /// This update and `other`: the fields of each operator merged (`$set`
    /// of both, `$inc` of both, ...). A path given twice to one operator
    /// keeps `other`'s value.
    pub fn and(mut self, other: impl Into<Update>) -> Update {
        let other = other.into();
        self.error = self.error.or(other.error);
        for (op, fields) in other.doc {
            match (self.doc.get_mut(&op), fields) {
                (Some(Bson::Document(mine)), Bson::Document(theirs)) => mine.extend(theirs),
                (_, fields) => {
                    self.doc.insert(op, fields);
                }
            }
        }
        self
    }

    /// The update document (the refused operator when a value could not be
    /// encoded).
    pub fn to_document(&self) -> Document {
        match &self.error {
            None => self.doc.clone(),
            Some(reason) => unencodable_doc(reason),
        }
    }
}

impl From<Document> for Update {
    fn from(doc: Document) -> Update {
        Update { doc, error: None }
    }
}

impl From<Update> for Document {
    fn from(update: Update) -> Document {
        match update.error {
            None => update.doc,
            Some(reason) => unencodable_doc(&reason),
        }
    }
}

/// Updates on every path, checked against the field's type (see [`Store`]).
impl<T, P: Prefix> FieldPath<T, P> {
    /// Stores `value`: `$set`.
    pub fn set<V: Store<T>>(self, value: V) -> Update {
        Update::op("$set", P::PATH, value.encode())
    }

    /// Removes the field: `$unset`. Only an `Option` field: a required
    /// field removed would leave a document that no longer loads.
    pub fn unset(self) -> Update
    where
        T: Nullable,
    {
        Update::op("$unset", P::PATH, Ok(Bson::String(String::new())))
    }

    /// Adds `by` (negative to subtract): `$inc`. Number fields only.
    pub fn inc<V: Store<T>>(self, by: V) -> Update
    where
        T: Number,
    {
        Update::op("$inc", P::PATH, by.encode())
    }
}

/// Array updates, taking the element type.
impl<T: Seq, P: Prefix> FieldPath<T, P> {
    /// Appends `value`: `$push`.
    pub fn push<V: Store<T::Elem>>(self, value: V) -> Update {
        Update::op("$push", P::PATH, value.encode())
    }

    /// Removes every element equal to `value`: `$pull`.
    pub fn pull<V: Store<T::Elem>>(self, value: V) -> Update {
        Update::op("$pull", P::PATH, value.encode())
    }
}
