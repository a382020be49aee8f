//! `odm::transaction`: run a closure in a transaction, retried as the
//! driver's convenient transaction API retries, with the `Doc`s it changes
//! rolled back in memory whenever an attempt does not commit.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use mongodb::options::TransactionOptions;
use mongodb::{Client, ClientSession};

use super::rollback::Rollback;
use crate::error::classify::classify;
use crate::error::{Error, Result};
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;
use crate::wire::session::BoxFuture;

/// How long a transaction keeps retrying, as in the MongoDB drivers.
const MAX_RETRY_TIME: Duration = Duration::from_secs(120);

/// The longest pause between two attempts.
const MAX_BACKOFF: Duration = Duration::from_millis(500);

/// A pending [`transaction`]; optionally [`options`](Transaction::options)
/// and [`session`](Transaction::session), then `.await` it.
#[must_use = "a transaction does nothing until it is awaited"]
pub struct Transaction<'a, C, R, F> {
    client: &'a Client,
    context: C,
    callback: F,
    options: Option<TransactionOptions>,
    session: Option<&'a mut ClientSession>,
    _result: PhantomData<fn() -> R>,
}

/// Runs `callback` in a transaction and commits it; on an error from the
/// callback the transaction is aborted and the error returned (a business
/// rule of the callback's returns [`Error::application`]).
///
/// Retries as the MongoDB drivers' `withTransaction` does, for up to 120
/// seconds: an error labelled `TransientTransactionError` (a write conflict
/// with another transaction, a failover) from the callback or the commit
/// runs the whole callback again in a new transaction, after a short random
/// pause; a commit labelled `UnknownTransactionCommitResult` is committed
/// again. Other errors are returned; the last one when time runs out.
///
/// The callback may run several times, so it must be re-runnable: it gets
/// the session and `&mut context`, and everything it changes must be
/// reachable from the context. The context is how the callback borrows
/// your `Doc`s (as the driver's `and_run`): pass `(&mut a, &mut b)` and
/// write `|s, (a, b)| Box::pin(async move { .. })`.
///
/// Before the first attempt the context is checkpointed ([`Rollback`]);
/// whenever an attempt is retried or the transaction aborted, it is rolled
/// back: each `Doc` gets back its value, snapshot and version, so no
/// version is bumped in memory for writes the server rolled back and a
/// retried callback starts from the same values. After a commit whose
/// outcome stayed unknown the `Doc`s are rolled back too: reload them.
///
/// Pass the session to every operation inside: `doc.save().session(s)`,
/// `model.upsert(..).session(s)`, `model.claim(..).session(s)`,
/// `model.update_with_retry(..).session(s)`. Do not commit or abort in the
/// callback, and do not swallow errors of operations inside it (a failed
/// write may have aborted the transaction on the server).
///
/// ```no_run
/// # use odm::prelude::*;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
/// # struct Account { #[serde(rename = "_id")] id: String, balance: i64 }
/// # async fn run(client: mongodb::Client, mut a: Doc<Account>, mut b: Doc<Account>) -> odm::Result<()> {
/// odm::transaction(&client, (&mut a, &mut b), |s, (a, b)| {
///     Box::pin(async move {
///         if a.balance < 10 {
///             // A business rule: aborts, returned as it is, never retried.
///             return Err(Error::application("insufficient funds"));
///         }
///         a.balance -= 10;
///         a.save().session(s).await?;
///         b.balance += 10;
///         b.save().session(s).await?;
///         Ok(())
///     })
/// })
/// .await?;
/// # Ok(()) }
/// ```
pub fn transaction<'a, C, R, F>(
    client: &'a Client,
    context: C,
    callback: F,
) -> Transaction<'a, C, R, F>
where
    C: Rollback + Send + 'a,
    F: for<'b> FnMut(&'b mut ClientSession, &'b mut C) -> BoxFuture<'b, Result<R>> + Send + 'a,
    R: Send + 'a,
{
    Transaction {
        client,
        context,
        callback,
        options: None,
        session: None,
        _result: PhantomData,
    }
}

impl<'a, C, R, F> Transaction<'a, C, R, F> {
    /// Read / write concern and read preference of the transaction.
    pub fn options(mut self, options: TransactionOptions) -> Self {
        self.options = Some(options);
        self
    }
}

awaitable! {
    impl['a, C, R, F] Transaction<'a, C, R, F> where [C: Rollback + Send + 'a, F: for<'b> FnMut(&'b mut ClientSession, &'b mut C) -> BoxFuture<'b, Result<R>> + Send + 'a, R: Send + 'a] => Result<R>;
    /// Runs in this session instead of a new one.
    session;
    into_future(self) run(self)
}

async fn run<'a, C, R, F>(tx: Transaction<'a, C, R, F>) -> Result<R>
where
    C: Rollback + Send + 'a,
    F: for<'b> FnMut(&'b mut ClientSession, &'b mut C) -> BoxFuture<'b, Result<R>> + Send + 'a,
    R: Send + 'a,
{
    let Transaction {
        client,
        mut context,
        mut callback,
        options,
        session,
        ..
    } = tx;
    let mut owned;
    let session = match session {
        Some(s) => s,
        None => {
            owned = client.start_session().await?;
            &mut owned
        }
    };
    let checkpoint = context.checkpoint();
    let started = Instant::now();
    let mut attempt: u32 = 0;
    'attempt: loop {
        if attempt > 0 {
            tokio::time::sleep(backoff(attempt)).await;
        }
        attempt += 1;
        session
            .start_transaction()
            .with_options(options.clone())
            .await?;
        let value = match callback(&mut *session, &mut context).await {
            Ok(value) => value,
            Err(e) => {
                // Fails harmlessly when the server already aborted it.
                let abort = session.abort_transaction();
                let _ = Command::new("", "abortTransaction").send(abort).await;
                context.rollback(&checkpoint);
                if is_transient(&e) && started.elapsed() < MAX_RETRY_TIME {
                    continue 'attempt;
                }
                return Err(e);
            }
        };
        loop {
            let commit = session.commit_transaction();
            let e = match Command::new("", "commitTransaction").send(commit).await {
                Ok(()) => return Ok(value),
                Err(e) => e,
            };
            let in_time = started.elapsed() < MAX_RETRY_TIME;
            let class = classify(&e);
            if class.commit_unknown && !class.time_limit && in_time {
                continue;
            }
            if class.commit_unknown {
                // Given up on a commit that may have landed: the `Doc`s go
                // back, but their next version-bumping save checks.
                context.rollback_in_doubt(&checkpoint);
            } else {
                context.rollback(&checkpoint);
            }
            if class.transient_transaction && in_time {
                continue 'attempt;
            }
            return Err(Error::from(e));
        }
    }
}

/// A transient transaction error: the whole transaction may be run again.
fn is_transient(e: &Error) -> bool {
    e.driver()
        .is_some_and(|e| classify(e).transient_transaction)
}

/// A random pause before attempt `attempt + 1`: up to 5 ms doubled per
/// attempt, at most [`MAX_BACKOFF`]. The randomness keeps two conflicting
/// transactions from retrying in lockstep.
fn backoff(attempt: u32) -> Duration {
    let cap = Duration::from_millis(5)
        .saturating_mul(1 << attempt.min(10))
        .min(MAX_BACKOFF);
    let random = RandomState::new().hash_one(attempt);
    cap.mul_f64((random % 1_000) as f64 / 1_000.0)
}
