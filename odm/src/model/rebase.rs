//! `doc.rebase()`: read the stored document and re-apply this copy's
//! pending changes on it (a three-way merge: what this copy loaded, what it
//! holds now, what the store holds now), unless a path of this copy's
//! overlaps one the store changed since. The rules are pure
//! (`plan::conflict`); here, the read and the `Doc`'s new state.

use mongodb::ClientSession;

use crate::codec::{self, version_key};
use crate::error::{Error, Result, VersionError};
use crate::model::doc::Doc;
use crate::model::refused::read_stored;
use crate::model::Document;
use crate::plan::conflict::{self, Unmergeable};
use crate::plan::request;
use crate::plan::versioning;
use crate::wire::session::awaitable;

/// A pending [`Doc::rebase`]; `.await` it, optionally after
/// [`session`](Rebase::session).
#[must_use = "nothing is read until it is awaited"]
pub struct Rebase<'a, T: Document> {
    doc: &'a mut Doc<T>,
    session: Option<&'a mut ClientSession>,
}

impl<T: Document> Doc<T> {
    /// Reads the stored document and re-applies this copy's pending changes
    /// on it, when none of them overlaps what the store changed since this
    /// copy was loaded: the answer to a version error when the other writer
    /// changed other fields.
    ///
    /// It is a three-way merge of paths: what this copy loaded, what it
    /// holds now ([`modified_paths`](Doc::modified_paths)) and what the
    /// store holds now (the paths it changed, as
    /// [`VersionError::stored_changes`] names them). Two paths overlap when
    /// they are equal or one lies under the other (`meta` and `meta.city`;
    /// `comments` pushed to and `comments.1.text` edited). With no overlap,
    /// the value becomes the stored document with this copy's paths written
    /// over it (a push, a pull or an element edit is re-applied as the
    /// array this copy holds, which is exactly that change, since the store
    /// left the array alone), the `Doc` is tracked at the stored version,
    /// and its next save sends only this copy's changes ([`changes`](Doc::changes)
    /// shows them), checked against that version.
    ///
    /// With an overlap, nothing changes: the `Doc` is left exactly as it
    /// was, and the error is [`Error::Version`] whose
    /// [`stored_changes`](VersionError::stored_changes) names the stored
    /// paths that overlap this copy's ([`modified_paths`](VersionError::modified_paths)).
    /// Decide then, or [`reload`](Doc::reload) and apply the change again.
    /// The `timestamps` fields are odm's and never overlap: the store's are
    /// kept, and the next save stamps its own.
    ///
    /// [`Error::NotFound`] for a new or deleted `Doc` or a document that is
    /// gone. Nothing is written: save afterwards.
    ///
    /// ```no_run
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # #[odm(optimistic_concurrency)]
    /// # struct User { #[serde(rename = "_id")] id: ObjectId, status: String, avatar: Option<String> }
    /// # async fn run(mut doc: Doc<User>) -> odm::Result<()> {
    /// doc.avatar = Some("new.png".into());
    /// match doc.save().await {
    ///     Err(Error::Version(e)) => {
    ///         println!("another writer changed {:?}", e.stored_changes());
    ///         doc.rebase().await?; // Error::Version again if they changed `avatar` too
    ///         doc.save().await?;
    ///     }
    ///     other => other?,
    /// }
    /// # Ok(()) }
    /// ```
    pub fn rebase(&mut self) -> Rebase<'_, T> {
        Rebase {
            doc: self,
            session: None,
        }
    }
}

awaitable! {
    impl['a, T: Document] Rebase<'a, T> => Result<()>;
    /// Reads inside `session` (and its transaction, if one is open).
    session;
    into_future(self) run(self.doc, self.session)
}

async fn run<T: Document>(doc: &mut Doc<T>, session: Option<&mut ClientSession>) -> Result<()> {
    let model = doc.model().clone();
    let name = model.name();
    let (Some(id), Some(target), false) =
        (doc.stored_id().cloned(), doc.target(), doc.is_deleted())
    else {
        let target = doc.target().unwrap_or_default();
        return Err(request::not_found(name, target));
    };
    let meta = T::__odm_meta();
    let plan = doc.plan()?;
    let odm_owned = |path: &String| {
        meta.timestamps.is_some_and(|ts| {
            [ts.created_at, ts.updated_at]
                .iter()
                .any(|field| conflict::overlaps(path, field))
        })
    };
    let mine: Vec<String> = versioning::modified_paths(&plan.changes)
        .into_iter()
        .filter(|p| !odm_owned(p))
        .collect();
    let Some(stored) = read_stored(&model, target.clone(), session).await? else {
        return Err(request::not_found(name, target));
    };
    // The store's document as this model reads it (a document at an
    // older schema version upgraded, as a load would), odm's keys hidden.
    let layout = crate::schema::layout::<T>();
    let fresh = codec::load::<T>(stored, name, &layout)?;
    let now = version_key::hidden(&fresh.stored, layout.hidden);
    let loaded = doc
        .loaded_form()
        .expect("a stored Doc whose value serializes has its loaded form");
    let theirs: Vec<String> = conflict::changed_paths(&loaded, &now)
        .into_iter()
        .filter(|p| !odm_owned(p))
        .collect();
    let refused = |clash: Vec<String>| {
        let e = VersionError::new(id.clone(), doc.version().unwrap_or(0), mine.clone());
        Error::Version(Box::new(e.with_stored_changes(clash)))
    };
    let clash = conflict::overlap(&theirs, &mine);
    if !clash.is_empty() {
        return Err(refused(clash));
    }
    let current = plan.current.whole(doc.as_stored().map(|s| &**s));
    let merged = match conflict::merge(&now, &current, &mine) {
        Ok(merged) => merged,
        Err(Unmergeable(path)) => return Err(refused(vec![path])),
    };
    drop(loaded);
    drop(now);
    // The merge holds no odm keys: decoded as it is, never upgraded.
    let plain = crate::codec::Layout {
        hidden: layout.hidden,
        schema: None,
    };
    let value = codec::load::<T>(merged, name, &plain)?.value;
    doc.rebased(fresh, value)
}
