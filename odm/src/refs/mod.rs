//! References between models: [`Ref<T>`], loading many targets at once
//! ([`Model::find_refs`](crate::Model::find_refs)), joining them in an
//! aggregation ([`Aggregate::lookup`](crate::Aggregate::lookup)), and
//! referential rules that hold under concurrent writers.
//!
//! # Referential rules
//!
//! A rule is declared on both models, and a missing half does not
//! compile:
//!
//! ```
//! use odm::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! #[derive(Debug, Clone, Serialize, Deserialize, Document)]
//! #[odm(collection = "users", referenced_by(Post))]
//! pub struct User {
//!     #[serde(rename = "_id")]
//!     pub id: ObjectId,
//!     pub name: String,
//! }
//!
//! #[derive(Debug, Clone, Serialize, Deserialize, Document)]
//! #[odm(collection = "posts")]
//! pub struct Post {
//!     #[serde(rename = "_id")]
//!     pub id: ObjectId,
//!     #[odm(reference(on_delete = refuse))]     // a user with posts cannot be deleted
//!     pub author: Ref<User>,
//!     #[odm(reference(on_delete = clear))]      // set to null when the user goes
//!     pub editor: Option<Ref<User>>,
//!     #[odm(reference(on_delete = pull))]       // pulled from the list
//!     pub reviewers: Vec<Ref<User>>,
//! }
//! ```
//!
//! `on_delete` is `refuse` ([`Error::Referenced`](crate::Error::Referenced)
//! naming how many documents refer and one of them), `cascade` (the
//! referring documents are deleted, their own rules applied), `clear`
//! (an `Option<Ref<T>>` field is set to `null`) or `pull` (the id is
//! pulled from a `Vec<Ref<T>>`); `clear` on another field type, or a
//! target that does not list the referring model in
//! `referenced_by(..)`, is a compile error. Every rule also refuses a
//! write that would store a reference to a document that does not exist
//! ([`Error::Dangling`](crate::Error::Dangling)). Models with rules are
//! `Clone` (a compile error says so): their writes run in transactions
//! that may run again.
//!
//! ## What holds, and how
//!
//! A delete that checks for referring documents and an insert that
//! checks for its target touch different documents: run concurrently,
//! even in two transactions, both commit and the new document refers to
//! nothing (write skew). odm makes both sides write the target:
//!
//! - **A write that adds a reference** (a save, `create`, `insert_many`,
//!   `bulk_save`, `upsert`, `claim`, `update_many`, `update_with_retry`)
//!   runs in a transaction that first increments the hidden counter
//!   `__refs` of each target it refers to (one `update` per target
//!   collection, `$in` of the ids); a target it does not match does not
//!   exist, and the write is refused with
//!   [`Error::Dangling`](crate::Error::Dangling), writing nothing.
//! - **A delete of a target** (`doc.delete()`, `delete_many`) runs in a
//!   transaction that applies each rule to the referring documents
//!   (refusals first: one `aggregate` per rule; a cascade reads the ids
//!   and deletes them, a clear or pull is one `update_many` of the
//!   referring model, versioned and stamped as `update_many` is) and then
//!   deletes the target.
//!
//! Two transactions that write one document conflict: the later writer
//! gets a write conflict, a transient transaction error, and runs again
//! ([`transaction`](crate::transaction)'s retries) seeing what the other
//! committed: the delete now sees the new reference (and refuses,
//! cascades, clears or pulls), or the write now finds the target gone (and
//! is refused). `__refs` is odm's field, hidden from the value like the
//! version key (`#[serde(deny_unknown_fields)]` models still load) and not
//! a version bump: a stale copy of the target still saves.
//!
//! A write that adds no reference (a save that changed no reference
//! field, an update that writes none) runs as it would without rules,
//! with no transaction and no extra command. A save compares each
//! reference field with the copy as loaded: a field whose ids changed is
//! written, and all its ids are checked (a list that changed is checked
//! whole). A model with `#[odm(hooks)]` saves in a transaction whenever
//! it has rules, since a hook may change a reference.
//!
//! ## What it costs and needs
//!
//! - Transactions, so a replica set or a sharded cluster (a standalone
//!   server refuses them).
//! - A write that adds references: one more `update` (the mark) and the
//!   commit: three round trips instead of one. Writes that add references
//!   to one target conflict with each other and are serialized by their
//!   retries, so a much-referenced document (a popular author) caps the
//!   rate of such writes.
//! - A delete under rules: one `aggregate` per `refuse` rule, a `find`
//!   and a `delete` per `cascade` rule, an `update` per `clear` or `pull`
//!   rule, and the commit. Index each reference field that has a rule
//!   (`#[odm(index)]`), or these reads scan the referring collection.
//! - A bulk write under rules is all or nothing: a write error of one
//!   `Doc` (a duplicate key) aborts the transaction, so it is returned as
//!   the batch's error with every `Doc` as before; a version miss is still
//!   that `Doc`'s own outcome.
//!
//! Inside a caller's transaction (`.session(s)` of a session in
//! [`transaction`](crate::transaction)) the marks and rules run in it, and
//! a write conflict is the caller's transaction's to retry. A session
//! without a transaction gets one started on it.
//!
//! The mark is a write: a change stream on the target's collection sees
//! an update of `__refs`, and a write of the target by someone else
//! meanwhile waits for (or, in a transaction, conflicts with) the
//! referencing write's transaction.
//!
//! ## Outside the rules
//!
//! - Rules hold between the models' declared collections in the
//!   database of the model handle that writes or deletes.
//! - Writes through [`Model::collection`](crate::Model::collection) (the
//!   driver itself) and through a handle on another collection
//!   ([`Model::with_collection`](crate::Model::with_collection)): rules
//!   name the models' declared collections.
//! - An update that writes a reference field with a value the server
//!   computes (`$rename` onto it, `$inc`, `$max`, ...) cannot be checked:
//!   `update_many` and `claim` refuse it with
//!   [`Error::Validation`](crate::Error::Validation) before sending.
//! - Rules are declared on top-level fields; a `Ref` inside a
//!   sub-document is a plain reference, loaded and filtered like any
//!   other but not checked.

mod delete;
mod filters;
mod find;
mod guard;
pub(crate) mod linked;
mod lookup;
pub(crate) mod ops;
mod plan;
mod reference;
mod send;

pub use find::{FindRefs, LeanRefs, Refs};
pub use linked::{Linked, OnDelete, Shape};
pub use lookup::{Joined, Lookup, LookupStream};
pub use reference::{IdOf, Ref};
