//! Every operation that adds a reference or deletes a referred-to
//! document, under the rules: the versions the model's
//! `Document::__odm_guard` hands to the operations (see
//! [`model::guard`](crate::model::guard)). Each finds what the operation
//! refers to (or deletes); when that is nothing the operation runs as it
//! would without rules, else it runs in a transaction with the marks on
//! its targets ([`guard`]) or the delete rules ([`delete`]).
//!
//! Rules hold between models on their declared collections: a handle on
//! another collection (`Model::with_collection`) runs its operations
//! without them.

use std::any::{Any, TypeId};
use std::marker::PhantomData;

use mongodb::bson::doc;
use mongodb::ClientSession;

use super::delete::{on_delete, Reached};
use super::guard::{in_transaction, mark};
use super::linked::{ids_of, Linked, RulesClone};
use super::plan::{self, Targets};
use crate::atomic::{claim, upsert, Claim, DocCheckpoint, Rollback, Upsert};
use crate::bulk::{BulkSave, BulkSaveGuard, InsertMany, InsertManyGuard};
use crate::error::{Error, Result};
use crate::many::{
    delete as delete_many, update as update_many, DeleteMany, UpdateMany, UpdateReport,
};
use crate::model::doc::Doc;
use crate::model::{delete as delete_one, save, Model};
use crate::wire::session::BoxFuture;

/// The operations of `T` under its rules, by the `TypeId` of the
/// operation's function type (see `Document::__odm_guard`).
pub fn guard<T: Linked + RulesClone>(op: TypeId) -> Option<&'static (dyn Any + Send + Sync)> {
    macro_rules! guards {
        ($($ty:ty => $guard:ident),* $(,)?) => {$(
            if op == TypeId::of::<$ty>() {
                return Some(Guards::<T>::$guard);
            }
        )*};
    }
    guards!(
        save::Guard<T> => SAVE,
        delete_one::Guard<T> => DELETE,
        BulkSaveGuard<T> => BULK_SAVE,
        InsertManyGuard<T> => INSERT_MANY,
        update_many::Guard<T> => UPDATE_MANY,
        delete_many::Guard<T> => DELETE_MANY,
        upsert::Guard<T> => UPSERT,
        claim::Guard<T> => CLAIM,
    );
    None
}

struct Guards<T>(PhantomData<T>);

impl<T: Linked + RulesClone> Guards<T> {
    const SAVE: &'static save::Guard<T> = &(save_doc::<T> as save::Guard<T>);
    const DELETE: &'static delete_one::Guard<T> = &(delete_doc::<T> as delete_one::Guard<T>);
    const BULK_SAVE: &'static BulkSaveGuard<T> = &(bulk_save::<T> as BulkSaveGuard<T>);
    const INSERT_MANY: &'static InsertManyGuard<T> = &(insert_many::<T> as InsertManyGuard<T>);
    const UPDATE_MANY: &'static update_many::Guard<T> = &(update::<T> as update_many::Guard<T>);
    const DELETE_MANY: &'static delete_many::Guard<T> = &(delete::<T> as delete_many::Guard<T>);
    const UPSERT: &'static upsert::Guard<T> = &(upsert_one::<T> as upsert::Guard<T>);
    const CLAIM: &'static claim::Guard<T> = &(claim_one::<T> as claim::Guard<T>);
}

/// Whether `model` is on `T`'s declared collection, where the rules hold.
fn declared<T: Linked>(model: &Model<T>) -> bool {
    model.name() == T::__odm_meta().collection
}

/// What saving `doc` writes under the rules: every id of a new
/// document; for a stored one, when a rule field's ids changed since it
/// was read, the ids its update writes (`$set` of a field, `$push` of the
/// appended ids, none for a pull), read from [`Doc::changes`] as an
/// `update_many` is read. A hook's changes come after (see [`by_hook`]).
fn written<T: Linked>(doc: &Doc<T>) -> Result<Targets> {
    let now = ids_of::<T>(doc);
    let Some(stored) = doc.as_stored() else {
        return Ok(now);
    };
    let changed = plan::written(Some(&plan::stored_ids(T::RULES, stored)), &now);
    // A pending schema upgrade: `stored` is the upgraded form, so a rule
    // field the upgrade itself rewrote looks unchanged; its update says.
    if plan::none(&changed) && doc.migrated_from().is_none() {
        return Ok(changed);
    }
    match doc.try_changes() {
        Ok(Some((_, update))) => plan::written_by_update(T::RULES, doc.model().name(), &update),
        Ok(None) => Ok(Targets::new()),
        // The save fails before sending: nothing to mark.
        Err(_) => Ok(changed),
    }
}

/// What a `before_save` hook wrote under the rules: the ids of each rule
/// field it changed (from `was`, the ids before the save, to the value
/// as saved).
fn by_hook<T: Linked>(doc: &Doc<T>, was: &Targets, marked: &Targets) -> Targets {
    plan::minus(&plan::written(Some(was), &ids_of::<T>(doc)), marked)
}

fn save_doc<'a, T: Linked + RulesClone>(
    doc: &'a mut Doc<T>,
    session: Option<&'a mut ClientSession>,
    fence: Option<i64>,
    retry: Option<bool>,
) -> BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        let hooked = T::__odm_meta().hooks;
        if T::RULES.is_empty() || !declared(doc.model()) {
            return save::run(doc, session, fence, retry).await;
        }
        let first = written(doc)?;
        // A hook may change a reference: a hooked model's save runs in a
        // transaction, to mark what the hook wrote once it ran.
        if plan::none(&first) && !hooked {
            return save::run(doc, session, fence, retry).await;
        }
        let was = ids_of::<T>(doc);
        let db = doc.model().database();
        let client = db.client().clone();
        in_transaction(&client, session, doc, move |s, doc| {
            let (db, first, was) = (db.clone(), first.clone(), was.clone());
            let doc: &mut Doc<T> = doc;
            Box::pin(async move {
                mark::<T>(&db, &first, s).await?;
                save::run(doc, Some(&mut *s), fence, retry).await?;
                if hooked {
                    mark::<T>(&db, &by_hook(doc, &was, &first), s).await?;
                }
                Ok(())
            }) as BoxFuture<'_, Result<()>>
        })
        .await
    })
}

fn delete_doc<'a, T: Linked + RulesClone>(
    doc: &'a mut Doc<T>,
    session: Option<&'a mut ClientSession>,
) -> BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        let id = doc.stored_id().cloned();
        let (Some(id), false) = (id, T::REFERRERS.is_empty() || !declared(doc.model())) else {
            return delete_one::run(doc, session).await;
        };
        let db = doc.model().database();
        let client = db.client().clone();
        in_transaction(&client, session, doc, move |s, doc| {
            let (db, id) = (db.clone(), id.clone());
            let doc: &mut Doc<T> = doc;
            Box::pin(async move {
                on_delete::<T>(&db, &[id], s, &mut Reached::default()).await?;
                delete_one::run(doc, Some(s)).await
            }) as BoxFuture<'_, Result<()>>
        })
        .await
    })
}

/// The `Doc`s of a batch, rolled back together.
struct Batch<'a, T: Linked>(&'a mut [Doc<T>]);

impl<T: Linked + Clone> Rollback for Batch<'_, T> {
    type Checkpoint = Vec<DocCheckpoint<T>>;

    fn checkpoint(&self) -> Self::Checkpoint {
        self.0.iter().map(Rollback::checkpoint).collect()
    }

    fn rollback(&mut self, checkpoint: &Self::Checkpoint) {
        for (doc, c) in self.0.iter_mut().zip(checkpoint) {
            doc.rollback(c);
        }
    }

    fn rollback_in_doubt(&mut self, checkpoint: &Self::Checkpoint) {
        for (doc, c) in self.0.iter_mut().zip(checkpoint) {
            doc.rollback_in_doubt(c);
        }
    }
}

/// A batch under rules runs in one transaction: a write error of one
/// statement (a duplicate key) aborts it on the server, so no other
/// statement landed either. That error is the batch's, every `Doc` as
/// before.
fn aborting<D>(outcomes: &mut Vec<Result<D>>) -> Option<Error> {
    let at = outcomes
        .iter()
        .position(|o| matches!(o, Err(Error::DuplicateKey(_) | Error::Driver(_))))?;
    outcomes.swap_remove(at).err()
}

fn bulk_save<'a, T: Linked + RulesClone>(
    op: BulkSave<'a, T>,
) -> BoxFuture<'a, Result<Vec<Result<()>>>> {
    Box::pin(async move {
        let hooked = T::__odm_meta().hooks;
        if T::RULES.is_empty() || !declared(op.model) {
            return op.unguarded().await;
        }
        let mut first = Targets::new();
        for doc in op.docs.iter() {
            plan::add(&mut first, written(doc)?);
        }
        let was: Vec<Targets> = op.docs.iter().map(|doc| ids_of::<T>(doc)).collect();
        if plan::none(&first) && !hooked {
            return op.unguarded().await;
        }
        let BulkSave {
            model,
            docs,
            path,
            fence,
            session,
        } = op;
        let db = model.database();
        let client = db.client().clone();
        in_transaction(&client, session, Batch(docs), move |s, batch| {
            let (db, first, was) = (db.clone(), first.clone(), was.clone());
            let docs: &mut [Doc<T>] = &mut *batch.0;
            Box::pin(async move {
                mark::<T>(&db, &first, s).await?;
                let op = BulkSave {
                    model,
                    docs: &mut *docs,
                    path,
                    fence,
                    session: Some(&mut *s),
                };
                let mut outcomes = op.unguarded().await?;
                if let Some(e) = aborting(&mut outcomes) {
                    return Err(e);
                }
                if hooked {
                    let mut more = Targets::new();
                    for (doc, was) in docs.iter().zip(&was) {
                        plan::add(&mut more, by_hook(doc, was, &first));
                    }
                    mark::<T>(&db, &more, s).await?;
                }
                Ok(outcomes)
            }) as BoxFuture<'_, Result<Vec<Result<()>>>>
        })
        .await
    })
}

/// Runs `op` (built anew for each attempt, inside the transaction's
/// session) after marking `targets`, in a transaction: how the writes
/// that are not one `Doc`'s run under the rules.
fn marked<'a, T, R, F>(
    model: &'a Model<T>,
    session: Option<&'a mut ClientSession>,
    targets: Targets,
    op: F,
) -> BoxFuture<'a, Result<R>>
where
    T: Linked + RulesClone,
    R: Send + 'a,
    F: for<'b> Fn(&'b Model<T>, &'b mut ClientSession) -> BoxFuture<'b, Result<R>>
        + Clone
        + Send
        + Sync
        + 'a,
{
    Box::pin(async move {
        let db = model.database();
        let client = db.client().clone();
        in_transaction(&client, session, model, move |s, model| {
            let (db, targets, op) = (db.clone(), targets.clone(), op.clone());
            let model: &Model<T> = model;
            Box::pin(async move {
                mark::<T>(&db, &targets, s).await?;
                op(model, s).await
            }) as BoxFuture<'_, Result<R>>
        })
        .await
    })
}

fn insert_many<'a, T: Linked + RulesClone>(
    op: InsertMany<'a, T>,
) -> BoxFuture<'a, Result<Vec<Result<Doc<T>>>>> {
    Box::pin(async move {
        let hooked = T::__odm_meta().hooks;
        if T::RULES.is_empty() || !declared(op.model) {
            return op.unguarded().await;
        }
        let mut first = Targets::new();
        for value in &op.values {
            plan::add(&mut first, ids_of(value));
        }
        if plan::none(&first) && !hooked {
            return op.unguarded().await;
        }
        let InsertMany {
            model,
            values,
            path,
            session,
        } = op;
        let marked_first = first.clone();
        marked(model, session, first, move |model, s| {
            let (values, first) = (values.clone(), marked_first.clone());
            Box::pin(async move {
                let op = InsertMany {
                    model,
                    values,
                    path,
                    session: Some(&mut *s),
                };
                let mut outcomes = op.unguarded().await?;
                if let Some(e) = aborting(&mut outcomes) {
                    return Err(e);
                }
                if hooked {
                    let mut more = Targets::new();
                    for doc in outcomes.iter().flatten() {
                        plan::add(&mut more, ids_of::<T>(doc));
                    }
                    mark::<T>(&model.database(), &plan::minus(&more, &first), s).await?;
                }
                Ok(outcomes)
            })
        })
        .await
    })
}

fn update<'a, T: Linked + RulesClone>(
    op: UpdateMany<'a, T>,
) -> BoxFuture<'a, Result<UpdateReport>> {
    Box::pin(async move {
        if T::RULES.is_empty() || !declared(op.model) {
            return op.unguarded().await;
        }
        let targets = plan::written_by_update(T::RULES, op.model.name(), &op.update)?;
        if plan::none(&targets) {
            return op.unguarded().await;
        }
        let (filter, update, keep_version) = (op.filter, op.update, op.keep_version);
        marked(op.model, op.session, targets, move |model, s| {
            let (filter, update) = (filter.clone(), update.clone());
            UpdateMany {
                model,
                filter,
                update,
                keep_version,
                session: Some(s),
            }
            .unguarded()
        })
        .await
    })
}

fn delete<'a, T: Linked + RulesClone>(op: DeleteMany<'a, T>) -> BoxFuture<'a, Result<u64>> {
    Box::pin(async move {
        if T::REFERRERS.is_empty() || !declared(op.model) {
            return op.unguarded().await;
        }
        let DeleteMany {
            model,
            filter,
            session,
        } = op;
        let db = model.database();
        let client = db.client().clone();
        in_transaction(&client, session, model, move |s, model| {
            let (db, filter) = (db.clone(), filter.clone());
            let model: &'a Model<T> = model;
            Box::pin(async move {
                let ids = super::send::ids_matching(&db, model.name(), filter, s).await?;
                on_delete::<T>(&db, &ids, s, &mut Reached::default()).await?;
                let mut deleted = 0;
                for chunk in ids.chunks(super::send::CHUNK) {
                    let op = DeleteMany {
                        model,
                        filter: doc! { "_id": { "$in": chunk } },
                        session: Some(&mut *s),
                    };
                    deleted += op.unguarded().await?;
                }
                Ok(deleted)
            }) as BoxFuture<'_, Result<u64>>
        })
        .await
    })
}

fn upsert_one<'a, T: Linked + RulesClone>(op: Upsert<'a, T>) -> BoxFuture<'a, Result<Doc<T>>> {
    Box::pin(async move {
        if T::RULES.is_empty() || !declared(op.model) {
            return upsert::run(op).await;
        }
        let name = op.model.name();
        let targets =
            plan::written_by_upsert(T::RULES, name, &op.filter, &op.set, &op.set_on_insert)?;
        if plan::none(&targets) {
            return upsert::run(op).await;
        }
        let (filter, set, set_on_insert, fence) = (op.filter, op.set, op.set_on_insert, op.fence);
        marked(op.model, op.session, targets, move |model, s| {
            let op = Upsert {
                model,
                filter: filter.clone(),
                set: set.clone(),
                set_on_insert: set_on_insert.clone(),
                session: Some(s),
                fence,
            };
            Box::pin(upsert::run(op))
        })
        .await
    })
}

fn claim_one<'a, T: Linked + RulesClone>(
    op: Claim<'a, T>,
) -> BoxFuture<'a, Result<Option<Doc<T>>>> {
    Box::pin(async move {
        if T::RULES.is_empty() || !declared(op.model) {
            return claim::run(op).await;
        }
        let targets = plan::written_by_update(T::RULES, op.model.name(), &op.update)?;
        if plan::none(&targets) {
            return claim::run(op).await;
        }
        let (filter, update, sort, fence) = (op.filter, op.update, op.sort, op.fence);
        marked(op.model, op.session, targets, move |model, s| {
            let op = Claim {
                model,
                filter: filter.clone(),
                update: update.clone(),
                sort: sort.clone(),
                session: Some(s),
                fence,
            };
            Box::pin(claim::run(op))
        })
        .await
    })
}
