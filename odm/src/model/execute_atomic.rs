//! The one step that runs an atomic write's [`FindModify`]: send it
//! (inside the session if given, through the command log, a fenced one
//! through the fence's collection handle), classify a refusal through the
//! one classifier, send it again when the request says so, read the fence
//! when it says so, and hand back the document as the update left it
//! (`None` when nothing matched). `claim()` and `upsert()` go through it.

use mongodb::action::Action;
use mongodb::bson::raw::RawDocumentBuf;
use mongodb::options::{ReturnDocument, UpdateModifications};
use mongodb::{ClientSession, Collection};

use crate::error::{from_driver, Error, Result};
use crate::model::{Document, Model};
use crate::plan::request::find_modify::{Answer, FindModify, Modification, Resent};
use crate::wire::command_log::Command;
use crate::wire::conflict_log::{self, Operation, Site};
use crate::wire::fence;
use crate::wire::session::send;

/// Runs `request` on `model`'s collection, inside `session` if given;
/// reports its conflicts (a resend, a fence refusal, a write in doubt).
pub(crate) async fn execute_atomic<T: Document>(
    model: &Model<T>,
    request: &FindModify,
    session: Option<&mut ClientSession>,
) -> Result<Option<RawDocumentBuf>> {
    let site = Site {
        model: T::__odm_meta().name,
        collection: model.name(),
        operation: match request.upsert {
            true => Operation::Upsert,
            false => Operation::Claim,
        },
    };
    let ran = run(model, request, session, site).await;
    if let Err(e) = &ran {
        conflict_log::failed(site, e);
    }
    ran
}

async fn run<T: Document>(
    model: &Model<T>,
    request: &FindModify,
    mut session: Option<&mut ClientSession>,
    site: Site<'_>,
) -> Result<Option<RawDocumentBuf>> {
    // A fenced write states write concern majority (see `fence::options`).
    let fenced = request
        .fence
        .map(|_| fence::collection(model.raw_collection()));
    let collection = fenced.as_ref().unwrap_or(model.raw_collection());
    let in_session = session.is_some();
    let mut resent = Resent::default();
    loop {
        let sent = find_and_modify(model.name(), collection, request, session.as_deref_mut());
        let answer = match sent.await {
            Ok(Some(raw)) => return Ok(Some(raw)),
            Ok(None) => Answer::Empty,
            Err(e) => match from_driver(e, model.name()) {
                e @ Error::DuplicateKey(_) => {
                    if let Some(token) = request.fence_read(Answer::DuplicateKey) {
                        // The refused document no longer matched, so the
                        // server tried an insert: report the refusal. Read
                        // outside the session, whose transaction the failed
                        // write aborted.
                        let read = fence::refusal(
                            model.raw_collection(),
                            request.given.clone(),
                            token,
                            None,
                        );
                        if let Some(fenced) = read.await? {
                            return Err(fenced);
                        }
                    }
                    if request.again(Answer::DuplicateKey, &mut resent, in_session) {
                        conflict_log::resent(site, "duplicate_key", resent.duplicate_key);
                        continue;
                    }
                    return Err(e);
                }
                e => return Err(e),
            },
        };
        if request.again(answer, &mut resent, in_session) {
            conflict_log::resent(site, "empty_answer", resent.empty);
            continue;
        }
        if let Some(token) = request.fence_read(answer) {
            let collection = model.raw_collection();
            let read = fence::refusal(collection, request.given.clone(), token, session);
            if let Some(fenced) = read.await? {
                return Err(fenced);
            }
        }
        return Ok(None);
    }
}

/// Sends `request` once, logged as `findAndModify`.
async fn find_and_modify(
    name: &str,
    collection: &Collection<RawDocumentBuf>,
    request: &FindModify,
    session: Option<&mut ClientSession>,
) -> mongodb::error::Result<Option<RawDocumentBuf>> {
    let log = Command::new(name, "findAndModify").filter(&request.filter);
    let (log, update): (_, UpdateModifications) = match &request.update {
        Modification::Operators(u) => (log.update(u), u.clone().into()),
        Modification::Pipeline(p) => (log.update(p.as_slice()), p.clone().into()),
    };
    let action = collection
        .find_one_and_update(request.filter.clone(), update)
        .return_document(ReturnDocument::After)
        .optional(request.upsert.then_some(true), |a, upsert| a.upsert(upsert))
        .optional(request.sort.clone(), |a, sort| a.sort(sort));
    log.send(send(action, session)).await
}
