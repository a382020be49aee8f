//! The pure rules of a write: from the tracked state, the current value
//! and the model's [`Meta`](crate::schema::meta::Meta) to the
//! `(filter, update)` a write sends, and from its answer to what the
//! `Doc` commits. No I/O here: `wire` sends, and the
//! builders of the user's surface ask this layer once per write.
//!
//! - [`diff`]: what changed between two serializations;
//! - [`versioning`], [`guard`], [`paths`]: the version effect and the
//!   filter's guards of those changes;
//! - [`timestamps`]: the `#[odm(timestamps)]` fields;
//! - [`request`]: the request of one write as a value (`request::write`:
//!   insert, update, check, delete; `request::find_modify`: claim,
//!   upsert), with the shard key and fence terms;
//! - [`update_ops`]: small edits of update documents;
//! - [`upgrade`]: the save of a document upgraded to the model's schema
//!   version on load;
//! - [`tracked`]: what a `Doc` remembers of the stored document;
//! - [`conflict`]: what another writer changed, whether two paths
//!   overlap, and the three-way merge of `Doc::rebase`;
//! - [`kind`]: an enum model's kind in every write's filter, and a change
//!   of kind as a rewrite.

pub(crate) mod conflict;
pub(crate) mod current;
pub(crate) mod diff;
pub(crate) mod filter_terms;
pub(crate) mod guard;
pub(crate) mod kind;
pub(crate) mod paths;
pub(crate) mod request;
pub(crate) mod timestamps;
pub(crate) mod tracked;
pub(crate) mod update_ops;
pub(crate) mod upgrade;
pub(crate) mod versioning;
