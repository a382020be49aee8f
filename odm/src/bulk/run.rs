//! One `bulk_save`: refuse a bad batch, make every `Doc` ready, send every
//! statement in one bulk write (unordered; the driver splits it at the
//! server's limits), read each statement's answer, settle the statements
//! whose answer alone does not tell (a miss that may be a deleted
//! document, a `Doc` with nothing to write) with one more read, then
//! commit, keep or leave in doubt each `Doc` as `save()` would.

use std::collections::HashMap;

use mongodb::bson::{doc, Bson, Document as BsonDocument};
use mongodb::ClientSession;

use super::answer::Answer;
use super::commands::Sent;
use super::path::BulkPath;
use super::prepare::{self, prepare, Step};
use super::refuse;
use super::send::{self, Fence};
use crate::codec::version_key::FENCE;
use crate::error::{complete_insert, from_driver, may_have_applied, Error, Result};
use crate::model::doc::Doc;
use crate::model::hooks::{self, HookContext};
use crate::model::Document;
use crate::model::Model;
use crate::plan::request::{self, Plan};
use crate::wire::conflict_log::{Operation, Site};

/// A `Doc` whose outcome one read after the write settles.
struct Pending {
    at: usize,
    plan: Plan,
    id: Bson,
    filter: BsonDocument,
    /// `true`: a statement that matched nothing and checked only a guard
    /// (is the document still there?) or a fence (does it hold a larger
    /// token?); `false`: a `Doc` with nothing to write (does `filter` still
    /// match?).
    missed: bool,
    /// The token of a fenced batch.
    fence: Option<i64>,
}

/// Saves `docs` as [`Model::bulk_save`](crate::Model::bulk_save) says.
pub(crate) async fn run<T: Document>(
    model: &Model<T>,
    docs: &mut [Doc<T>],
    path: BulkPath,
    fence: Option<i64>,
    mut session: Option<&mut ClientSession>,
    operation: Operation,
) -> Result<Vec<Result<()>>> {
    if docs.is_empty() {
        return Ok(Vec::new());
    }
    refuse_batch(model, docs)?;
    let meta = T::__odm_meta();
    let was_new: Vec<bool> = docs.iter().map(Doc::is_new).collect();
    // One read of the server's clock stamps the whole batch.
    let at = if crate::wire::server_clock::enabled::<T>() {
        Some(crate::wire::server_clock::server_now(&model.database(), model.name()).await?)
    } else {
        None
    };
    let mut steps = Vec::with_capacity(docs.len());
    for doc in docs.iter_mut() {
        steps.push(prepare(doc, session.as_deref_mut(), at, fence).await);
    }
    let fence = match fence {
        Some(token) => {
            let majority = super::fence::states_concern(model, session.as_deref_mut()).await;
            Some(Fence { token, majority })
        }
        None => None,
    };

    // The statements, in the order of the Docs; `at[i]` is Doc i's.
    let route = send::route(model, path, session.as_deref())
        .await
        .map_err(|e| from_driver(e, model.name()))?;
    let mut count = 0;
    let mut at = vec![usize::MAX; docs.len()];
    let mut settled = vec![false; docs.len()];
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Insert { .. } => {}
            // In doubt until the server answers: a caller that stops
            // waiting may leave the update applied.
            Step::Update { .. } => settled[i] = std::mem::replace(&mut docs[i].in_doubt, true),
            Step::Check { .. } | Step::Done(_) => continue,
        }
        at[i] = count;
        count += 1;
    }
    let Sent { answers, found } = if count == 0 {
        Sent {
            answers: Vec::new(),
            found: None,
        }
    } else {
        let loaded = send::Loaded::of(docs);
        let token = fence.map(|f| f.token);
        let refill = |steps: &mut [Step]| prepare::refill(docs, steps, token);
        send::send(
            model,
            &mut steps,
            &loaded,
            route,
            fence,
            refill,
            session.as_deref_mut(),
        )
        .await
    };

    let mut outcomes: Vec<Option<Result<()>>> = (0..docs.len()).map(|_| None).collect();
    // Whether some Doc got an outcome of its own, not only the batch's.
    let mut own = false;
    let mut batch_error = None;
    let mut pending = Vec::new();
    for (i, step) in steps.into_iter().enumerate() {
        let doc = &mut docs[i];
        let answer = answers.get(at[i]).cloned();
        own |= answer.as_ref().is_none_or(Answer::is_own);
        outcomes[i] = match (step, answer) {
            (Step::Done(outcome), _) => Some(outcome),
            (Step::Check { plan, id, filter }, _) => {
                pending.push(Pending {
                    at: i,
                    plan,
                    id,
                    filter,
                    missed: false,
                    fence: None,
                });
                None
            }
            (Step::Insert { plan, stored }, Some(answer)) => Some(match answer {
                Answer::Inserted | Answer::Matched(_) => {
                    let id = crate::codec::read_id(plan.current.of_new())?;
                    doc.commit(id, plan, true);
                    Ok(())
                }
                Answer::Refused(e) => Err(complete_insert(
                    from_driver(e, model.name()),
                    |name| meta.index_keys(name),
                    &stored,
                )),
                Answer::Unheld => unreachable!("an insert's answer is never read back"),
                Answer::Unsatisfied(e) | Answer::Unknown(e) => {
                    batch_error.get_or_insert(e.clone());
                    Err(from_driver(e, model.name()))
                }
            }),
            (
                Step::Update {
                    plan, id, filter, ..
                },
                Some(answer),
            ) => match answer {
                Answer::Matched(0) => {
                    let token = fence.map(|f| f.token);
                    let filter = prepare::sent_filter(doc, &plan, filter, token);
                    doc.in_doubt = settled[i];
                    let fenced = fence.map(|f| f.token);
                    if request::only_guarded(&plan) || fenced.is_some() {
                        pending.push(Pending {
                            at: i,
                            plan,
                            id,
                            filter,
                            missed: true,
                            fence: fenced,
                        });
                        None
                    } else {
                        let version = doc.version();
                        Some(Err(request::no_match(
                            model.name(),
                            id,
                            version,
                            filter,
                            &plan,
                        )))
                    }
                }
                Answer::Matched(_) | Answer::Inserted => {
                    doc.commit(id, plan, false);
                    Some(Ok(()))
                }
                // It may have landed and been overwritten since: told in
                // doubt, not a miss (a miss tells the caller to reload and
                // apply the change again, which could apply it twice).
                Answer::Unheld => {
                    doc.in_doubt = true;
                    Some(Err(from_driver(super::commands::unheld(), model.name())))
                }
                Answer::Refused(e) => {
                    doc.in_doubt = settled[i];
                    let e = from_driver(e, model.name());
                    Some(Err(complete_insert(
                        e,
                        |name| meta.index_keys(name),
                        &plan.current.whole(doc.as_stored().map(|s| &**s)),
                    )))
                }
                Answer::Unsatisfied(e) | Answer::Unknown(e) => {
                    doc.in_doubt = settled[i] || may_have_applied(&e);
                    batch_error.get_or_insert(e.clone());
                    Some(Err(from_driver(e, model.name())))
                }
            },
            (Step::Insert { .. } | Step::Update { .. }, None) => {
                unreachable!("every statement has an answer")
            }
        };
    }

    // Whole documents, when the update command's path read them.
    let mut whole = found.is_some();
    let found = match (found, pending.is_empty()) {
        (found, true) => found,
        (Some(found), false) => Some(found),
        (None, false) => {
            let mut clauses = clauses(docs, &pending);
            // When some Doc is or may be stale, the same read takes whole
            // documents, and those of the stale ones too: their stored
            // changes then need no read of their own.
            let stale = super::conflicts::stale_targets(docs, &outcomes);
            whole = !stale.is_empty() || pending.iter().any(|p| p.missed);
            if whole {
                clauses.extend(stale);
            }
            let fenced = fence.is_some();
            let read = read_seen(model, clauses, fenced, whole, session.as_deref_mut());
            Some(read.await)
        }
    };
    if !pending.is_empty() {
        own = true;
        let found = found.as_ref().expect("read for the pending Docs");
        settle(model, docs, pending, &mut outcomes, found);
    }
    let site = Site {
        model: meta.name,
        collection: model.name(),
        operation,
    };
    if !own {
        if let Some(e) = batch_error {
            let e = from_driver(e, model.name());
            super::conflicts::in_doubt(site, docs, &at, &e);
            return Err(e);
        }
    }
    let whole = found
        .as_ref()
        .filter(|_| whole)
        .and_then(|f| f.as_ref().ok());
    super::conflicts::explain(model, docs, &mut outcomes, whole, session.as_deref_mut()).await;
    super::conflicts::report(site, &outcomes);

    let mut told = Vec::with_capacity(docs.len());
    for (i, outcome) in outcomes.into_iter().enumerate() {
        let mut outcome = outcome.expect("every Doc has an outcome");
        if outcome.is_ok() && meta.hooks {
            let mut ctx = HookContext::new(session.as_deref_mut(), was_new[i], model.database());
            let value: &T = &docs[i];
            let hooked = value.__odm_after_save(&mut ctx).await;
            outcome = hooked.map_err(|e| hooks::named("after_save", e));
        }
        told.push(outcome);
    }
    Ok(told)
}

/// Refuses a batch with a `_id` given twice or a `Doc` of another
/// collection.
fn refuse_batch<T: Document>(model: &Model<T>, docs: &[Doc<T>]) -> Result<()> {
    let namespace = model.collection().namespace();
    let ours = namespace.to_string();
    // A `Doc` of this very model (the usual batch) is of this namespace:
    // only another model's namespace is built to compare.
    let theirs: Vec<Option<String>> = docs
        .iter()
        .map(|d| {
            if d.model().same_handle(model) {
                return None;
            }
            let other = d.model().collection().namespace();
            (other != namespace).then(|| other.to_string())
        })
        .collect();
    let entries = docs.iter().zip(&theirs).map(|(d, other)| {
        let id = match d.stored_id() {
            Some(id) => Some(id.clone()),
            None => d.id().ok(),
        };
        (id, other.as_deref().unwrap_or(&ours))
    });
    refuse::check(model.name(), &ours, entries).map_err(Error::Batch)
}

/// The clauses of the read that settles `pending`: `{$or: [them]}`. Each
/// `_id` is in the batch once, so a document read answers for exactly one
/// `Doc`.
fn clauses<T: Document>(docs: &[Doc<T>], pending: &[Pending]) -> Vec<BsonDocument> {
    pending
        .iter()
        .map(|p| match p.missed || kind_only(p) {
            true => request::target(&p.id, docs[p.at].shard()),
            false => p.filter.clone(),
        })
        .collect()
}

/// A `Doc` with nothing to write whose filter checks nothing but its
/// `_id`, shard key and an enum model's kind: its read asks for the
/// document by `_id` and compares the stored kind, so a deleted document
/// (not found) is told from one turned into another kind (a stale copy).
fn kind_only(p: &Pending) -> bool {
    !p.missed && p.plan.kind.is_some() && request::only_guarded(&p.plan)
}

/// Whether `stored` (as read, with its kind) holds the kind `p`'s copy
/// was loaded as.
fn same_kind(p: &Pending, stored: &BsonDocument) -> bool {
    match &p.plan.kind {
        Some(term) => stored.get_str(term.key).ok() == Some(term.loaded),
        None => true,
    }
}

/// Settles `pending` from `found`, the documents a read found (their
/// `_id` and fence at least): a `Doc` with nothing to write is saved if its
/// filter still matches; a fenced miss whose document holds a larger token
/// is refused by the fence, as `save().fenced()` tells it; a guarded miss
/// is not found if its document is gone.
fn settle<T: Document>(
    model: &Model<T>,
    docs: &mut [Doc<T>],
    pending: Vec<Pending>,
    outcomes: &mut [Option<Result<()>>],
    found: &mongodb::error::Result<Vec<BsonDocument>>,
) {
    let by_id: HashMap<super::refuse::Key, &BsonDocument> = match found {
        Ok(found) => found
            .iter()
            .filter_map(|d| Some((super::refuse::key(d.get("_id")?), d)))
            .collect(),
        Err(_) => HashMap::new(),
    };
    for p in pending {
        let doc = &mut docs[p.at];
        let outcome = match found {
            Err(e) => Err(from_driver(e.clone(), model.name())),
            Ok(_) => {
                let stored = by_id.get(&super::refuse::key(&p.id));
                let refused = p.fence.and_then(|token| {
                    let fence = stored.and_then(|d| crate::codec::integer(d.get(FENCE)?));
                    let target = request::target(&p.id, doc.shard());
                    super::fence::refusal(model.name(), target, token, fence)
                });
                if let Some(refused) = refused {
                    outcomes[p.at] = Some(Err(refused));
                    continue;
                }
                // A fenced miss that checked more than a guard is a
                // version miss whether or not its document is there, as
                // `save()` tells it.
                let gone_tells = request::only_guarded(&p.plan);
                let kind_only = kind_only(&p);
                match (p.missed, stored) {
                    (false, Some(stored)) if !kind_only || same_kind(&p, stored) => {
                        doc.commit(p.id, p.plan, false);
                        Ok(())
                    }
                    (true, None) if gone_tells => Err(request::not_found(model.name(), p.filter)),
                    (false, None) if kind_only => Err(request::not_found(model.name(), p.filter)),
                    (_, _) => Err(request::no_match(
                        model.name(),
                        p.id,
                        doc.version(),
                        p.filter,
                        &p.plan,
                    )),
                }
            }
        };
        outcomes[p.at] = Some(outcome);
    }
}

/// The `_id`s and fences of the documents matching any of `clauses`, or
/// the `whole` documents (from the primary after a `fenced` batch).
async fn read_seen<T: Document>(
    model: &Model<T>,
    clauses: Vec<BsonDocument>,
    fenced: bool,
    whole: bool,
    session: Option<&mut ClientSession>,
) -> mongodb::error::Result<Vec<BsonDocument>> {
    let projection = (!whole).then(|| {
        let mut projection = doc! { "_id": 1, FENCE: 1 };
        if let Some(kinds) = T::__odm_meta().kinds {
            projection.insert(kinds.key, 1);
        }
        projection
    });
    let filter = doc! { "$or": clauses };
    super::read::read(model, filter, projection, fenced, session).await
}
