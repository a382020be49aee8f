//! Conflict telemetry: every conflict odm meets is one `tracing` event with
//! target `odm::conflict`, emitted here and nowhere else, so a team can
//! count conflicts per model with any subscriber or layer instead of
//! parsing log lines.
//!
//! One event for each of:
//! - a write refused as stale (outcome `stale`: [`Error::Version`]) by a
//!   save, an element of `bulk_save`, or the last try of
//!   `update_with_retry`;
//! - a fenced write refused (outcome `fenced`: [`Error::Fenced`]) by a
//!   save, an element of a fenced `bulk_save`, a claim or an upsert;
//! - a try of `update_with_retry` refused and tried again (outcome
//!   `retried`);
//! - an upsert sent again (outcome `resent`): after the server's "ok"
//!   without a document (`reason = "empty_answer"`) or after a duplicate
//!   key of two concurrent first upserts (`reason = "duplicate_key"`);
//! - a write left in doubt (outcome `in_doubt`, at `WARN`): the answer did
//!   not come back or was a write concern error, so it may have landed.
//!
//! Fields: `model` (the Rust type), `collection`, `operation` (`save`,
//! `bulk_save`, `insert_many`, `claim`, `upsert`, `update_with_retry`),
//! `outcome`, `paths` (this copy's modified paths, comma-separated; empty
//! when there are none), and where they apply `stored` (the paths the
//! store changed since the copy was loaded, when they were read),
//! `version` (the version the write expected), `token` (a refused fencing
//! token), `attempt` (which retry or resend, from 1), `reason` and `code`
//! (the server's, for a write in doubt). `id` (the document's `_id`) only
//! when [values are shown](crate::values_shown). Every event is at `INFO`
//! but `in_doubt`, at `WARN`.
//!
//! A claim that matched nothing (another worker took the document) is no
//! event: it is the claim's ordinary answer. Nothing is logged on a write
//! that succeeds, and with no subscriber listening at this target an event
//! costs one check of the level.

use mongodb::bson::Bson;
use tracing::Level;

use crate::error::{classify, id_text, values_shown, Error, VersionError};

/// The target of the events.
pub(crate) const TARGET: &str = "odm::conflict";

/// The operation a conflict happened in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    Save,
    BulkSave,
    InsertMany,
    Claim,
    Upsert,
    UpdateWithRetry,
}

impl Operation {
    fn name(self) -> &'static str {
        match self {
            Operation::Save => "save",
            Operation::BulkSave => "bulk_save",
            Operation::InsertMany => "insert_many",
            Operation::Claim => "claim",
            Operation::Upsert => "upsert",
            Operation::UpdateWithRetry => "update_with_retry",
        }
    }
}

/// Where a conflict happened: the model's Rust name and its collection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Site<'a> {
    pub model: &'static str,
    pub collection: &'a str,
    pub operation: Operation,
}

/// One event's fields.
#[derive(Default)]
struct Event<'a> {
    outcome: &'static str,
    paths: String,
    stored: Option<String>,
    version: Option<i64>,
    token: Option<i64>,
    attempt: Option<u64>,
    reason: Option<&'static str>,
    code: Option<i64>,
    id: Option<&'a Bson>,
}

/// Reports `error`, the failure of a write at `site`, when it is a
/// conflict: a stale write, a fenced refusal, a write left in doubt. Any
/// other error is none.
pub(crate) fn failed(site: Site<'_>, error: &Error) {
    let event = match error {
        Error::Version(e) => stale(e),
        Error::Fenced(e) => Event {
            outcome: "fenced",
            token: Some(e.token),
            id: e.filter.get("_id"),
            ..Event::default()
        },
        Error::Driver(e) if classify::may_have_applied(e) => Event {
            outcome: "in_doubt",
            code: classify::code(e).map(i64::from),
            ..Event::default()
        },
        _ => return,
    };
    emit(site, event);
}

/// Reports a try of `update_with_retry` refused with `error` and tried
/// again: the `attempt`-th retry.
pub(crate) fn retried(site: Site<'_>, error: &VersionError, attempt: usize) {
    let event = Event {
        outcome: "retried",
        attempt: Some(attempt as u64),
        ..stale(error)
    };
    emit(site, event);
}

/// Reports an upsert sent again after `reason` (`empty_answer`,
/// `duplicate_key`): the `attempt`-th resend.
pub(crate) fn resent(site: Site<'_>, reason: &'static str, attempt: usize) {
    let event = Event {
        outcome: "resent",
        reason: Some(reason),
        attempt: Some(attempt as u64),
        ..Event::default()
    };
    emit(site, event);
}

/// The fields of a stale write's refusal.
fn stale(e: &VersionError) -> Event<'_> {
    Event {
        outcome: "stale",
        paths: e.modified_paths().join(", "),
        stored: e.stored_changes().map(|paths| paths.join(", ")),
        version: Some(e.version()),
        id: Some(e.id()),
        ..Event::default()
    }
}

fn emit(site: Site<'_>, event: Event<'_>) {
    let level = match event.outcome {
        "in_doubt" => Level::WARN,
        _ => Level::INFO,
    };
    let enabled = match level {
        Level::WARN => tracing::enabled!(target: TARGET, Level::WARN),
        _ => tracing::enabled!(target: TARGET, Level::INFO),
    };
    if !enabled {
        return;
    }
    let id = event.id.filter(|_| values_shown()).map(id_text);
    macro_rules! event_at {
        ($level:expr) => {
            tracing::event!(
                target: TARGET,
                $level,
                model = site.model,
                collection = site.collection,
                operation = site.operation.name(),
                outcome = event.outcome,
                paths = event.paths.as_str(),
                stored = event.stored.as_deref(),
                version = event.version,
                token = event.token,
                attempt = event.attempt,
                reason = event.reason,
                code = event.code,
                id = id.as_deref(),
                "{} {} on {}",
                site.operation.name(),
                event.outcome,
                site.collection,
            )
        };
    }
    match level {
        Level::WARN => event_at!(Level::WARN),
        _ => event_at!(Level::INFO),
    }
}
