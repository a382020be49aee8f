//! Sending a batch's statements the chosen way ([`path`](super::path)):
//! one `bulkWrite`, or the `insert` / `update` commands; either way one
//! [`Answer`] per statement.

use mongodb::bson::raw::RawDocument;
use mongodb::bson::Document as BsonDocument;
use mongodb::options::{InsertOneModel, UpdateOneModel, WriteModel};
use mongodb::ClientSession;

use super::answer::{self, Answer};
use super::commands::{self, Sent, Statement};
use super::path::{self, BulkPath, Limits};
use super::prepare::Step;
use super::resolve::Expect;
use crate::model::doc::Doc;
use crate::model::Document;
use crate::model::Model;
use crate::plan::request::Plan;
use crate::wire::command_log::Command;
use crate::wire::session::send as sessioned;

/// The way chosen before anything is sent.
pub(crate) enum Route {
    /// `bulkWrite`; `fallback`: the server was not asked, so the commands
    /// are used if the driver finds it older than 8.0.
    BulkWrite {
        fallback: bool,
    },
    Commands(Limits),
}

/// The way `path` says for this server. Asks `hello` when the choice needs
/// it: forced commands (for their limits), or `Auto` inside a session
/// (which may hold a transaction, where a `bulkWrite` the driver refuses
/// before sending would still mark the transaction started).
pub(crate) async fn route<T: Document>(
    model: &Model<T>,
    path: BulkPath,
    session: Option<&ClientSession>,
) -> mongodb::error::Result<Route> {
    Ok(match path {
        BulkPath::BulkWrite => Route::BulkWrite { fallback: false },
        BulkPath::Auto if session.is_none() => Route::BulkWrite { fallback: true },
        BulkPath::Auto | BulkPath::Commands => {
            let hello = path::hello(model).await?;
            match path == BulkPath::Auto && hello.bulk_write() {
                true => Route::BulkWrite { fallback: false },
                false => Route::Commands(hello.limits),
            }
        }
    })
}

/// What a statement's `Doc` loaded: its version, and the snapshot its
/// plan was made from (a plan made as a patch of it is made whole from
/// it only where a statement's outcome is read back).
#[derive(Clone, Copy)]
pub(crate) struct Loaded<'d> {
    pub version: Option<i64>,
    pub snapshot: Option<&'d RawDocument>,
}

impl<'d> Loaded<'d> {
    /// What each of `docs` loaded, in order.
    pub fn of<T: Document>(docs: &'d [Doc<T>]) -> Vec<Loaded<'d>> {
        docs.iter()
            .map(|d| Loaded {
                version: d.version(),
                snapshot: d.as_stored().map(|s| &**s),
            })
            .collect()
    }
}

/// How a fenced batch is sent: its token, and whether it states
/// `w: majority` itself ([`states_concern`](super::fence::states_concern)).
#[derive(Clone, Copy)]
pub(crate) struct Fence {
    pub token: i64,
    pub majority: bool,
}

/// Sends the statements of `steps` (`loaded[i]`: what step `i`'s `Doc`
/// loaded) by `route`; the filters of the `Doc`s with nothing to
/// write are read along if the commands need a read. The `bulkWrite`
/// moves each update's filter and update into its write model; when the
/// driver then finds the server too old for it, `refill` builds them
/// again before the commands are sent.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn send<T: Document>(
    model: &Model<T>,
    steps: &mut [Step],
    loaded: &[Loaded<'_>],
    route: Route,
    fence: Option<Fence>,
    refill: impl FnOnce(&mut [Step]),
    mut session: Option<&mut ClientSession>,
) -> Sent {
    let majority = fence.is_some_and(|f| f.majority);
    let limits = match route {
        Route::Commands(limits) => limits,
        Route::BulkWrite { fallback } => {
            let result = bulk_write(model, steps, majority, session.as_deref_mut()).await;
            match result {
                Err(e) if fallback && path::too_old(&e) => match path::hello(model).await {
                    Ok(hello) => {
                        refill(steps);
                        hello.limits
                    }
                    Err(e) => return unknown(steps, e),
                },
                result => {
                    let count = statements(steps).count();
                    return Sent {
                        answers: answer::read(count, result),
                        found: None,
                    };
                }
            }
        }
    };
    let checks = steps
        .iter()
        .filter_map(|s| match s {
            Step::Check { filter, plan, .. } => Some(super::prepare::check_clause(filter, plan)),
            _ => None,
        })
        .collect();
    let statements = command_statements::<T>(steps, loaded, fence.map(|f| f.token));
    let fenced = fence.map(|f| f.majority);
    commands::write(model, statements, checks, limits, fenced, session).await
}

/// The statements of `steps` for the commands, each with what its
/// document holds if it lands (`fence`: the batch's token).
pub(crate) fn command_statements<'s, T: Document>(
    steps: &'s [Step],
    loaded: &[Loaded<'_>],
    fence: Option<i64>,
) -> Vec<Statement<'s>> {
    let key = T::__odm_meta().versioning.key;
    steps
        .iter()
        .zip(loaded)
        .filter_map(|(step, loaded)| match step {
            Step::Insert { stored, .. } => Some(Statement::Insert(stored)),
            Step::Update {
                plan,
                id,
                filter,
                update,
            } => Some(Statement::Update {
                id,
                // Both are held again (`refill`) before the commands.
                filter: filter.as_ref().expect("an update step's filter"),
                update: update.as_ref().expect("an update step's update"),
                expect: expect(plan, loaded, key, fence),
            }),
            _ => None,
        })
        .collect()
}

/// The steps that send a statement.
fn statements(steps: &[Step]) -> impl Iterator<Item = &Step> {
    steps
        .iter()
        .filter(|s| matches!(s, Step::Insert { .. } | Step::Update { .. }))
}

/// Every statement unknown with `e`.
fn unknown(steps: &[Step], e: mongodb::error::Error) -> Sent {
    Sent {
        answers: vec![Answer::Unknown(e); statements(steps).count()],
        found: None,
    }
}

/// One `bulkWrite` of every statement (the driver splits it at the
/// server's limits).
async fn bulk_write<T: Document>(
    model: &Model<T>,
    steps: &mut [Step],
    majority: bool,
    session: Option<&mut ClientSession>,
) -> mongodb::error::Result<mongodb::results::VerboseBulkWriteResult> {
    let models = write_models(model, steps)?;
    send_models(model, models, majority, session).await
}

/// The driver's write models of `steps`' statements, in order, each
/// update's filter and update moved into its model (the step keeps `None`:
/// [`statement`](super::prepare::statement) builds them again where
/// needed).
pub(crate) fn write_models<T: Document>(
    model: &Model<T>,
    steps: &mut [Step],
) -> mongodb::error::Result<Vec<WriteModel>> {
    let namespace = model.collection().namespace();
    let mut models: Vec<WriteModel> = Vec::with_capacity(steps.len());
    for step in steps.iter_mut() {
        models.push(match step {
            Step::Insert { stored, .. } => {
                let raw: &mongodb::bson::RawDocument = stored;
                let document =
                    BsonDocument::try_from(raw).map_err(|e| crate::error::raised(e.to_string()))?;
                InsertOneModel::builder()
                    .namespace(namespace.clone())
                    .document(document)
                    .build()
                    .into()
            }
            Step::Update { filter, update, .. } => UpdateOneModel::builder()
                .namespace(namespace.clone())
                .filter(filter.take().expect("an update step's filter"))
                .update(update.take().expect("an update step's update"))
                .build()
                .into(),
            Step::Check { .. } | Step::Done(_) => continue,
        });
    }
    Ok(models)
}

/// Sends `models` in one `bulkWrite`.
async fn send_models<T: Document>(
    model: &Model<T>,
    models: Vec<WriteModel>,
    majority: bool,
    session: Option<&mut ClientSession>,
) -> mongodb::error::Result<mongodb::results::VerboseBulkWriteResult> {
    let client = model.collection().client();
    let action = client.bulk_write(models).ordered(false);
    let action = match majority {
        true => action.write_concern(crate::wire::fence::majority()),
        false => action,
    };
    let action = action.verbose_results();
    let log = Command::new(model.name(), "bulkWrite");
    log.send(sessioned(action, session)).await
}

/// What the update of `plan` leaves in its document (`loaded` as its
/// `Doc` loaded it): the value as it will be committed, whole, and the
/// fence stored by a statement fenced with `fence`.
fn expect<'p>(
    plan: &'p Plan,
    loaded: &Loaded<'_>,
    key: Option<&str>,
    fence: Option<i64>,
) -> Expect<'p> {
    let schema = plan.schema.as_ref().map(|terms| {
        let stored = terms.write.map(i64::from).or(terms.stored).unwrap_or(0);
        (terms.key, stored)
    });
    Expect {
        bumps_from: (plan.effect.bump && key.is_some()).then(|| loaded.version.unwrap_or(0)),
        whole: plan.current.whole(loaded.snapshot),
        fence,
        schema,
    }
}
