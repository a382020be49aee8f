//! `doc.delete()`: remove the stored document, with its hooks.

use mongodb::ClientSession;

use crate::error::Result;
use crate::model::doc::Doc;
use crate::model::execute::execute;
use crate::model::hooks::{self, HookContext};
use crate::model::Document;
use crate::plan::request::{self, write};
use crate::wire::session::{awaitable, BoxFuture};

/// A delete that applies the rules pointing at the model (`refs`), when
/// there are any: see [`guard`](crate::model::guard).
pub(crate) type Guard<T> =
    for<'a> fn(&'a mut Doc<T>, Option<&'a mut ClientSession>) -> BoxFuture<'a, Result<()>>;

/// A pending [`Doc::delete`]; `.await` it, optionally after
/// [`session`](Delete::session).
#[must_use = "nothing is deleted until it is awaited"]
pub struct Delete<'a, T: Document> {
    doc: &'a mut Doc<T>,
    session: Option<&'a mut ClientSession>,
}

impl<T: Document> Doc<T> {
    /// Deletes the stored document, matched by its `_id` (and shard key;
    /// for an enum model, and the kind it was loaded as).
    /// With `#[odm(hooks)]`, `before_delete` runs first (its error refuses
    /// the delete) and `after_delete` after it landed. Afterwards a save
    /// returns [`Error::NotFound`](crate::Error::NotFound) without writing.
    /// [`Error::NotFound`](crate::Error::NotFound) too for a new document
    /// or one already gone.
    pub fn delete(&mut self) -> Delete<'_, T> {
        Delete {
            doc: self,
            session: None,
        }
    }
}

awaitable! {
    impl['a, T: Document] Delete<'a, T> => Result<()>;
    /// Deletes inside `session` (and its transaction, if one is open).
    session;
    into_future(self) async move {
        match crate::model::guard::<T, Guard<T>>() {
            Some(guarded) => guarded(self.doc, self.session).await,
            None => run(self.doc, self.session).await,
        }
    }
}

/// A delete, top-down: `before_delete`, the one request, `after_delete`.
pub(crate) async fn run<T: Document>(
    doc: &mut Doc<T>,
    mut session: Option<&mut ClientSession>,
) -> Result<()> {
    let Some(target) = doc.delete_target() else {
        return Err(request::not_found(
            doc.model().name(),
            mongodb::bson::Document::new(),
        ));
    };
    let hooked = T::__odm_meta().hooks;
    if hooked {
        let mut ctx = HookContext::new(session, false, doc.model().database());
        let done = doc.__odm_before_delete(&mut ctx).await;
        session = ctx.into_session();
        done.map_err(|e| hooks::named("before_delete", e))?;
    }
    execute(doc, write::delete(target), session.as_deref_mut()).await?;
    if hooked {
        let mut ctx = HookContext::new(session, false, doc.model().database());
        let done = doc.__odm_after_delete(&mut ctx).await;
        done.map_err(|e| hooks::named("after_delete", e))?;
    }
    Ok(())
}
