//! `doc.save()`: validate, then insert, or send one `updateOne` with the
//! minimal update and its version terms.

use std::future::{Future, IntoFuture};
use std::pin::Pin;

use mongodb::bson::doc;
use mongodb::ClientSession;

use crate::codec;
use crate::doc::{Doc, Plan};
use crate::document::Document;
use crate::error::{from_driver, Error, Result};

/// The future of an `odm` operation: boxed, `Send`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A pending [`Doc::save`]; `.await` it, optionally after
/// [`session`](Save::session).
#[must_use = "a save does nothing until it is awaited"]
pub struct Save<'a, T: Document> {
    doc: &'a mut Doc<T>,
    session: Option<&'a mut ClientSession>,
}

impl<T: Document> Doc<T> {
    /// Saves the document: validators first (on failure nothing is sent),
    /// then an insert for a new document, else one `updateOne` with only
    /// what changed, judged on the matched count. On any error the `Doc`
    /// keeps its changes and its version.
    pub fn save(&mut self) -> Save<'_, T> {
        Save {
            doc: self,
            session: None,
        }
    }
}

impl<'a, T: Document> Save<'a, T> {
    /// Runs the save inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }
}

impl<'a, T: Document> IntoFuture for Save<'a, T> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(run(self.doc, self.session))
    }
}

async fn run<T: Document>(doc: &mut Doc<T>, session: Option<&mut ClientSession>) -> Result<()> {
    if doc.is_deleted() {
        let id = doc.id()?;
        return Err(doc.not_found(doc! { "_id": id }));
    }
    doc.validate().map_err(Error::Validation)?;
    let plan = doc.plan()?;
    if doc.is_new() {
        insert(doc, plan, session).await
    } else {
        update(doc, plan, session).await
    }
}

async fn insert<T: Document>(
    doc: &mut Doc<T>,
    plan: Plan,
    session: Option<&mut ClientSession>,
) -> Result<()> {
    let mut stored = plan.current.clone();
    if let Some(key) = T::__odm_meta().versioning.key {
        stored.append(key, 0i32);
    }
    let action = doc.model().raw_collection().insert_one(&stored);
    let result = match session {
        Some(s) => action.session(s).await,
        None => action.await,
    };
    result.map_err(|e| {
        let e = from_driver(e, doc.model().name());
        crate::index::complete_insert(e, T::__odm_meta(), &stored)
    })?;
    let id = codec::read_id(&plan.current)?;
    doc.commit(id, plan, true);
    Ok(())
}

async fn update<T: Document>(
    doc: &mut Doc<T>,
    plan: Plan,
    session: Option<&mut ClientSession>,
) -> Result<()> {
    let id = doc.stored_id().expect("not new").clone();
    let (filter, update) = doc.request(&id, &plan);
    let mut session = session;
    let matched = if update.is_empty() {
        // Nothing to write: check that the document (at this version, under
        // optimistic_concurrency) still exists, as Mongoose does.
        u64::from(exists(doc, filter.clone(), session).await?)
    } else {
        let action = doc.model().collection().update_one(filter.clone(), update);
        let result = match session.as_deref_mut() {
            Some(s) => action.session(s).await,
            None => action.await,
        };
        let matched = result
            .map_err(|e| from_driver(e, doc.model().name()))?
            .matched_count;
        if matched == 0 && !plan.effect.any() && crate::guard::guarded(&plan.changes, false) {
            // Only a guard could have failed, or the document is gone:
            // tell a stale copy from a deleted document.
            if !exists(doc, doc! { "_id": id.clone() }, session).await? {
                return Err(doc.not_found(filter));
            }
        }
        matched
    };
    if matched == 0 {
        return Err(doc.no_match(id, filter, &plan));
    }
    doc.commit(id, plan, false);
    Ok(())
}

/// Whether a document matches `filter`, read inside `session` if given.
async fn exists<T: Document>(
    doc: &Doc<T>,
    filter: mongodb::bson::Document,
    session: Option<&mut ClientSession>,
) -> Result<bool> {
    let action = doc
        .model()
        .raw_collection()
        .find_one(filter)
        .projection(doc! { "_id": 1 });
    let found = match session {
        Some(s) => action.session(s).await,
        None => action.await,
    };
    Ok(found.map_err(Error::Driver)?.is_some())
}
