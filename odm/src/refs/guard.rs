//! How a rule holds against concurrent writers.
//!
//! A delete that checks for referring documents and an insert that checks
//! for its target read different documents, so two transactions doing
//! them concurrently both commit (write skew): the target is gone and the
//! new document refers to it. Both sides therefore write one common
//! document, the target:
//!
//! - a write that adds a reference under a rule runs in a transaction
//!   that first increments the target's hidden counter `__refs`
//!   (`$inc`, matched by `_id`): matching nothing means the target does
//!   not exist, and the write is refused ([`Error::Dangling`]);
//! - a delete of a target runs in a transaction that applies the rules
//!   to the referring documents and deletes the target.
//!
//! Two transactions writing one document conflict: the second writer gets
//! a write conflict (a transient transaction error) and runs again, now
//! seeing the other's committed writes, so the delete sees the new
//! reference (and refuses, cascades, clears or pulls it) or the write
//! sees the target gone (and is refused). `__refs` is odm's: hidden from
//! the value like the version key, and no version bump (a stale copy of
//! the target still saves).

use mongodb::bson::Bson;
use mongodb::{Client, ClientSession, Database};

use super::linked::Linked;
use super::plan::Targets;
use super::reference::Ref;
use super::send;
use crate::atomic::{transaction, Rollback};
use crate::error::classify::transaction_in_progress;
use crate::error::{DanglingError, Error, Result};
use crate::wire::session::BoxFuture;

/// Runs `work` inside a transaction: the one `session` holds, if it holds
/// one (the caller's `odm::transaction` then retries and rolls back);
/// else a new transaction on `session` (or on a new session), run by
/// [`transaction`]: retried on a transient error, with `context` rolled
/// back whenever an attempt does not commit.
pub(crate) async fn in_transaction<'a, C, R, F>(
    client: &'a Client,
    session: Option<&'a mut ClientSession>,
    context: C,
    mut work: F,
) -> Result<R>
where
    C: Rollback + Send + 'a,
    F: for<'b> FnMut(&'b mut ClientSession, &'b mut C) -> BoxFuture<'b, Result<R>> + Send + 'a,
    R: Send + 'a,
{
    let Some(s) = session else {
        return transaction(client, context, work).await;
    };
    if holds_transaction(s).await? {
        let mut context = context;
        work(s, &mut context).await
    } else {
        transaction(client, context, work).session(s).await
    }
}

/// Whether `session` is inside a transaction. The driver tells only by
/// refusing to start a second one (nothing is sent either way; a
/// transaction started here with no command in it ends without a word to
/// the server).
async fn holds_transaction(session: &mut ClientSession) -> Result<bool> {
    match session.start_transaction().await {
        Ok(()) => {
            session.abort_transaction().await?;
            Ok(false)
        }
        Err(e) if transaction_in_progress(&e) => Ok(true),
        Err(e) => Err(Error::Driver(e)),
    }
}

/// Marks every target of `targets` (ids under `A`'s rules), inside the
/// session's transaction: `$inc` of `__refs` on each, per target
/// collection. A target that does not exist fails the write with
/// [`Error::Dangling`], naming the first rule field that refers to it.
pub(crate) fn mark<'a, A: Linked>(
    db: &'a Database,
    targets: &'a Targets,
    session: &'a mut ClientSession,
) -> BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        let mut collections: Vec<&'static str> = Vec::new();
        for (i, ids) in targets.iter().enumerate() {
            let name = (A::RULES[i].target_meta)().collection;
            if !ids.is_empty() && !collections.contains(&name) {
                collections.push(name);
            }
        }
        for name in collections {
            let mut seen = std::collections::HashSet::new();
            let ids: Vec<Bson> = targets
                .iter()
                .enumerate()
                .filter(|(i, _)| (A::RULES[*i].target_meta)().collection == name)
                .flat_map(|(_, ids)| ids.iter())
                .filter(|id| seen.insert(Ref::<()>::from_bson((*id).clone())))
                .cloned()
                .collect();
            let missing = send::mark(db, name, &ids, session).await?;
            if let Some(id) = missing.first() {
                return Err(dangling::<A>(targets, name, id));
            }
        }
        Ok(())
    })
}

/// The refusal of a write whose reference `id` (into `target`) points at
/// nothing.
fn dangling<A: Linked>(targets: &Targets, target: &str, id: &Bson) -> Error {
    let wanted = Ref::<()>::from_bson(id.clone());
    let path = targets
        .iter()
        .enumerate()
        .find(|(i, ids)| {
            (A::RULES[*i].target_meta)().collection == target
                && ids.iter().any(|x| Ref::from_bson(x.clone()) == wanted)
        })
        .map_or("", |(i, _)| A::RULES[i].path);
    Error::Dangling(Box::new(DanglingError {
        collection: A::__odm_meta().collection.to_string(),
        path: path.to_string(),
        target: target.to_string(),
        id: id.clone(),
    }))
}
