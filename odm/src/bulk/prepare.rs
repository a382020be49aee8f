//! Each `Doc` of a batch made ready as `save()` makes it: refused if
//! deleted, `before_save`, an id for a new one, validators, the plan and
//! the shard key rule. What is left is a statement to send, a check to
//! read, or an outcome already told (nothing of that `Doc` is sent).

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{Bson, DateTime, Document as BsonDocument};
use mongodb::ClientSession;

use crate::error::Result;
use crate::model::doc::Doc;
use crate::model::Document;
use crate::plan::request::fence;
use crate::plan::request::{self, Plan};

/// One `Doc`, ready.
pub(crate) enum Step {
    /// Its outcome is told before sending: nothing of it is sent.
    Done(Result<()>),
    /// A new document: `stored` is what is inserted (with version 0).
    Insert { plan: Plan, stored: RawDocumentBuf },
    /// A stored document with something to write. On the `bulkWrite`
    /// path `filter` and `update` move into the driver's write model (the
    /// step then holds `None`: [`statement`] builds them again where
    /// needed).
    Update {
        plan: Plan,
        id: Bson,
        filter: Option<BsonDocument>,
        update: Option<BsonDocument>,
    },
    /// A stored document with nothing to write: `save()` checks that it
    /// (at this version) still exists.
    Check {
        plan: Plan,
        id: Bson,
        filter: BsonDocument,
    },
}

/// `doc` made ready, running its `before_save` inside `session`.
/// `at` is the server's time when the model stamps with it; `fence` the
/// token of a fenced batch, carried by its statement as `save().fenced()`
/// carries it (so a stored `Doc` always writes, at least the fence).
pub(crate) async fn prepare<T: Document>(
    doc: &mut Doc<T>,
    session: Option<&mut ClientSession>,
    at: Option<DateTime>,
    fence: Option<i64>,
) -> Step {
    if let Err(e) = crate::model::save::before_write(doc, session).await {
        return Step::Done(Err(e));
    }
    // The rest waits on nothing: a plain function, so the future holds
    // only the hook's state, not the plan and statement being built.
    match ready(doc, at, fence) {
        Ok(step) => step,
        Err(e) => Step::Done(Err(e)),
    }
}

fn ready<T: Document>(doc: &mut Doc<T>, at: Option<DateTime>, fence: Option<i64>) -> Result<Step> {
    let is_new = doc.is_new();
    let mut plan = crate::model::save::planned(doc)?;
    if let Some(at) = at {
        crate::plan::timestamps::restamp::<T>(&mut plan, doc.tracked(), at)?;
    }
    // A patch stays a patch: the commit applies it in place, and only a
    // statement whose outcome is read back (`bulk::resolve`) or refused
    // for a duplicate key needs the whole value, made then from the
    // `Doc`'s snapshot (see `send::Loaded`).
    if is_new {
        let stored = request::write::inserted::<T>(&plan, fence);
        return Ok(Step::Insert { plan, stored });
    }
    let id = doc
        .stored_id()
        .expect("a stored document has an id")
        .clone();
    let (filter, update) = statement(doc, &plan, fence);
    Ok(if update.is_empty() {
        Step::Check { plan, id, filter }
    } else {
        Step::Update {
            plan,
            id,
            filter: Some(filter),
            update: Some(update),
        }
    })
}

/// The filter and update of the save of the stored `doc` planned as
/// `plan`, fenced with `fence`: built by `prepare`, and built again where
/// the ones it built went into a write model the driver did not send, or
/// a miss's error names the filter.
pub(crate) fn statement<T: Document>(
    doc: &Doc<T>,
    plan: &Plan,
    fence: Option<i64>,
) -> (BsonDocument, BsonDocument) {
    let target = doc.target().expect("a stored document has a target");
    let (mut filter, mut update) = request::request::<T>(target, doc.version(), plan);
    if let Some(token) = fence {
        filter = fence::filter(filter, token);
        fence::stamp(&mut update, token);
    }
    (filter, update)
}

/// Builds again the filter and update of each update step of `steps`
/// (step `i` is `docs[i]`'s) that went into a write model.
pub(crate) fn refill<T: Document>(docs: &[Doc<T>], steps: &mut [Step], fence: Option<i64>) {
    for (doc, step) in docs.iter().zip(steps) {
        if let Step::Update {
            plan,
            filter,
            update,
            ..
        } = step
        {
            let (f, u) = statement(doc, plan, fence);
            (*filter, *update) = (Some(f), Some(u));
        }
    }
}

/// The filter an update step was sent with: `filter` if the step still
/// holds it, else built again (it went into a write model).
pub(crate) fn sent_filter<T: Document>(
    doc: &Doc<T>,
    plan: &Plan,
    filter: Option<BsonDocument>,
    fence: Option<i64>,
) -> BsonDocument {
    filter.unwrap_or_else(|| statement(doc, plan, fence).0)
}

/// The clause of the read that settles a [`Step::Check`] whose `filter`
/// was built for `plan`: the filter itself, except for an enum model's
/// `Doc` whose filter checks nothing but the kind beside the `_id`: then
/// the filter without the kind, so the read finds the document whatever
/// its kind, and the kind read back tells a stale copy (another kind)
/// from a deleted document.
pub(crate) fn check_clause(filter: &BsonDocument, plan: &Plan) -> BsonDocument {
    let mut clause = filter.clone();
    if let (true, Some(kind)) = (request::only_guarded(plan), &plan.kind) {
        clause.remove(kind.key);
    }
    clause
}
