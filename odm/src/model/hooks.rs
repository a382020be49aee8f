//! Document hooks: code a model runs around its own saves and deletes.
//!
//! A model opts in with `#[odm(hooks)]` and implements [`Hooks`]; every
//! method has a no-op default. The order of one save:
//!
//! 1. `before_save`: may change the value (the change goes out in the same
//!    single write, diffed and versioned as usual) or refuse with an error
//!    (nothing is sent);
//! 2. validators, on the value as `before_save` left it, so a hook cannot
//!    store what the validators refuse (Mongoose runs validation as the
//!    first of its pre-save hooks; odm validates last, right before the
//!    write);
//! 3. the write (insert or `updateOne`);
//! 4. `after_save`, only when the write landed: its error is returned, but
//!    the write stands and the `Doc` holds the saved state.
//!
//! `before_delete` / `after_delete` work the same way around
//! [`Doc::delete`](crate::Doc::delete). Hooks run for `save()` (and so for
//! [`Model::create`](crate::Model::create) and
//! [`Model::update_with_retry`](crate::Model::update_with_retry)) and
//! `delete()`; `upsert`, `claim`, `update_many`, `delete_many` and the raw
//! collection are single server
//! commands on a filter, with no document in memory to hand a hook, and run
//! none. A save that fails after `before_save` ran keeps the hook's changes
//! in the value, like any change made before `save()`: they are sent again
//! by the next save, and `before_save` runs again then, so write hooks
//! that may run more than once.

use std::future::Future;

pub use crate::schema::HookContext;

use crate::error::{Error, Result};
use crate::model::Document;

/// Code a model runs around its saves and deletes: implement the methods
/// you need and add `#[odm(hooks)]` to the model. See the
/// [module docs](crate::model::hooks) for the order of a save.
///
/// ```
/// use odm::prelude::*;
/// use odm::{HookContext, Hooks};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Debug, Serialize, Deserialize, Document)]
/// #[odm(collection = "accounts", hooks)]
/// struct Account {
///     #[serde(rename = "_id")]
///     id: ObjectId,
///     email: String,
///     closed: bool,
/// }
///
/// impl Hooks for Account {
///     async fn before_save(&mut self, _ctx: &mut HookContext<'_>) -> odm::Result<()> {
///         if self.closed {
///             return Err(Error::hook("a closed account cannot be saved"));
///         }
///         self.email = self.email.trim().to_lowercase();
///         Ok(())
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`#[odm(hooks)]` needs `impl odm::Hooks for {Self}`",
    label = "this model declares hooks",
    note = "implement the hooks you need; the others default to doing nothing"
)]
pub trait Hooks: Document {
    /// Runs before validation and the write of every save. It may change
    /// the value; an error refuses the save and nothing is sent.
    fn before_save(
        &mut self,
        ctx: &mut HookContext<'_>,
    ) -> impl Future<Output = Result<()>> + Send {
        let _ = ctx;
        async { Ok(()) }
    }

    /// Runs after a save landed. An error is returned to the caller, but
    /// the write stands.
    fn after_save(&self, ctx: &mut HookContext<'_>) -> impl Future<Output = Result<()>> + Send {
        let _ = ctx;
        async { Ok(()) }
    }

    /// Runs before a delete is sent; an error refuses it.
    fn before_delete(&self, ctx: &mut HookContext<'_>) -> impl Future<Output = Result<()>> + Send {
        let _ = ctx;
        async { Ok(()) }
    }

    /// Runs after a delete landed. An error is returned to the caller, but
    /// the document is deleted.
    fn after_delete(&self, ctx: &mut HookContext<'_>) -> impl Future<Output = Result<()>> + Send {
        let _ = ctx;
        async { Ok(()) }
    }
}

/// Names the hook in an [`Error::Hook`] made by [`Error::hook`].
pub(crate) fn named(hook: &'static str, e: Error) -> Error {
    match e {
        Error::Hook(mut h) if h.hook.is_empty() => {
            h.hook = hook;
            Error::Hook(h)
        }
        e => e,
    }
}
