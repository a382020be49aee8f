//! Set-based writes: [`Model::update_many`](crate::Model::update_many) and
//! [`Model::delete_many`](crate::Model::delete_many), one server command on
//! a filter, keeping the save rules that can be kept without the documents
//! in memory.
//!
//! | | `update_many` | `delete_many` |
//! |---|---|---|
//! | version key | bumped (`$inc`), unless [`keep_version`](UpdateMany::keep_version) | n/a |
//! | `updated_at` (`#[odm(timestamps)]`) | `$set` to now, unless the update writes it | n/a |
//! | field rules | run on each `$set` / `$unset` of a top-level field, before sending | n/a |
//! | shard key | a write to a shard key field is refused before sending | n/a |
//! | hooks | none | none |
//! | session | [`session`](UpdateMany::session) | [`session`](DeleteMany::session) |
//!
//! Hooks do not run: `before_save` / `after_save` / `before_delete` /
//! `after_delete` receive a document, and a set-based write has none in
//! memory (the server changes the documents where they are). Reading every
//! matched document to hand it to a hook would make it a loop of saves,
//! with none of the single command's atomicity per document or speed: when
//! hooks must run, load the documents and save them.

pub(crate) mod delete;
mod plan;
mod report;
pub(crate) mod update;

pub use delete::DeleteMany;
pub use report::UpdateReport;
pub use update::UpdateMany;

use std::future::IntoFuture;

use mongodb::ClientSession;

use crate::error::{from_driver, Result};
use crate::model::Document;
use crate::model::Model;
use crate::wire::command_log::{Answer, Command};
use crate::wire::session::Sessioned;

/// The last step of both set-based writes: `action` on `model`'s
/// collection sent (inside `session` when given) and logged as `log`; a
/// driver error classified for the collection.
async fn send<'a, T, A, R>(
    model: &Model<T>,
    log: Command<'_>,
    action: A,
    session: Option<&'a mut ClientSession>,
) -> Result<R>
where
    T: Document,
    A: Sessioned<'a> + IntoFuture<Output = mongodb::error::Result<R>>,
    R: Answer,
{
    let result = log.send(crate::wire::session::send(action, session)).await;
    result.map_err(|e| from_driver(e, model.name()))
}
