//! `Lease`: one grant of a lease, with its fencing token; renew, release,
//! and an optional keep-alive in the background.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mongodb::bson::oid::ObjectId;
use mongodb::bson::Document;
use mongodb::Collection;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::ops;
use crate::error::{from_driver, Error, LeaseLostError, Result};
use crate::wire::command_log::Command;

/// One grant of a lease, from [`Leases`](crate::lock::Leases).
///
/// Held until its ttl passes by the database's clock, unless
/// [renewed](Lease::renew) or [kept alive](Lease::keep_alive). Release it
/// with [`release`](Lease::release); a lease dropped without release is
/// free once its ttl passes (its keep-alive stops on drop).
///
/// Exclusion by a lease holds only while the holder is quick: a holder that
/// pauses past its ttl (a GC pause, a slow network) can still write after
/// the next holder. Writes that must not be overwritten by a stale holder
/// carry the lease's [`token`](Lease::token): see
/// [`Save::fenced`](crate::Save::fenced).
pub struct Lease {
    collection: Collection<Document>,
    key: String,
    owner: ObjectId,
    token: i64,
    ttl: Duration,
    /// `true` once the lease is known to be lost.
    lost: Arc<watch::Sender<bool>>,
    keep_alive: Option<JoinHandle<()>>,
}

impl Lease {
    pub(crate) fn new(
        collection: Collection<Document>,
        key: String,
        owner: ObjectId,
        token: i64,
        ttl: Duration,
    ) -> Self {
        Lease {
            collection,
            key,
            owner,
            token,
            ttl,
            lost: Arc::new(watch::Sender::new(false)),
            keep_alive: None,
        }
    }

    /// The fencing token: the number of grants of this key so far. Every
    /// grant of a key has a larger token than all grants before it, across
    /// releases, expiries and restarts.
    pub fn token(&self) -> i64 {
        self.token
    }

    /// The lease's key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The ttl each grant and renew gives.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Extends the lease to `ttl` after the database's now. Fails with
    /// [`Error::LeaseLost`] (changing nothing) if the lease expired or was
    /// taken; the lease is then [lost](Lease::is_lost).
    pub async fn renew(&self) -> Result<()> {
        let result = renew(
            &self.collection,
            &self.key,
            self.owner,
            self.token,
            self.ttl,
        )
        .await;
        if matches!(result, Err(Error::LeaseLost(_))) {
            self.lost.send_replace(true);
        }
        result
    }

    /// Frees the lease now (stopping its keep-alive); the next acquisition
    /// gets a larger token. Fails with [`Error::LeaseLost`] (changing
    /// nothing) if the lease had expired or was taken: the work done under
    /// it may have overlapped another holder's.
    pub async fn release(mut self) -> Result<()> {
        self.stop_keep_alive();
        let (filter, update) = (ops::held(&self.key, self.owner), ops::release());
        let log = Command::new(self.collection.name(), "update")
            .filter(&filter)
            .update(update.as_slice());
        let done = log
            .send(self.collection.update_one(filter, update))
            .await
            .map_err(|e| from_driver(e, self.collection.name()))?;
        if done.matched_count == 0 {
            self.lost.send_replace(true);
            return Err(self.lost_error());
        }
        Ok(())
    }

    /// Renews the lease in the background every third of its ttl until it
    /// is released or dropped. If a renew finds the lease lost, or no renew
    /// succeeds for a whole ttl (the server unreachable), the lease is
    /// marked lost: see [`is_lost`](Lease::is_lost) and
    /// [`lost`](Lease::lost). Needs a tokio runtime; calling it again does
    /// nothing.
    pub fn keep_alive(&mut self) -> &mut Self {
        if self.keep_alive.is_none() {
            self.keep_alive = Some(tokio::spawn(keep_alive(
                self.collection.clone(),
                self.key.clone(),
                self.owner,
                self.token,
                self.ttl,
                self.lost.clone(),
            )));
        }
        self
    }

    /// `true` once the lease is known to be lost: a renew (by the caller
    /// or the keep-alive) found it expired or taken, or the keep-alive
    /// could not renew it for a whole ttl. `false` does not prove the lease
    /// is still held: fence the writes that matter.
    pub fn is_lost(&self) -> bool {
        *self.lost.borrow()
    }

    /// Resolves when the lease is known to be lost (see
    /// [`is_lost`](Lease::is_lost)): race the work against it with
    /// `tokio::select!` to stop work whose lease is gone.
    pub async fn lost(&self) {
        let mut lost = self.lost.subscribe();
        // The sender lives as long as `self`, so this only ends on loss.
        let _ = lost.wait_for(|lost| *lost).await;
    }

    /// `Ok` unless the lease is known to be lost; then [`Error::LeaseLost`].
    pub fn check(&self) -> Result<()> {
        if self.is_lost() {
            Err(self.lost_error())
        } else {
            Ok(())
        }
    }

    fn lost_error(&self) -> Error {
        lost_error(&self.key, self.token)
    }

    fn stop_keep_alive(&mut self) {
        if let Some(task) = self.keep_alive.take() {
            task.abort();
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.stop_keep_alive();
    }
}

impl fmt::Debug for Lease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lease")
            .field("key", &self.key)
            .field("token", &self.token)
            .field("ttl", &self.ttl)
            .field("lost", &self.is_lost())
            .finish()
    }
}

fn lost_error(key: &str, token: i64) -> Error {
    Error::LeaseLost(Box::new(LeaseLostError {
        key: key.to_string(),
        token,
    }))
}

async fn renew(
    collection: &Collection<Document>,
    key: &str,
    owner: ObjectId,
    token: i64,
    ttl: Duration,
) -> Result<()> {
    let (filter, update) = (ops::held(key, owner), ops::renew(ttl));
    let log = Command::new(collection.name(), "update")
        .filter(&filter)
        .update(update.as_slice());
    let done = log
        .send(collection.update_one(filter, update))
        .await
        .map_err(|e| from_driver(e, collection.name()))?;
    if done.matched_count == 0 {
        return Err(lost_error(key, token));
    }
    Ok(())
}

/// The keep-alive task: renew every third of the ttl (retrying a failed
/// renew at the next tick), until the lease is found lost or no renew has
/// succeeded for a whole ttl, measured from before the last good renew
/// was sent (the caller's monotonic clock, so a pause counts against it).
async fn keep_alive(
    collection: Collection<Document>,
    key: String,
    owner: ObjectId,
    token: i64,
    ttl: Duration,
    lost: Arc<watch::Sender<bool>>,
) {
    let every = (ttl / 3).max(Duration::from_millis(1));
    let mut last_good = Instant::now();
    loop {
        tokio::time::sleep(every).await;
        let sent = Instant::now();
        match renew(&collection, &key, owner, token, ttl).await {
            Ok(()) => last_good = sent,
            Err(Error::LeaseLost(_)) => break,
            Err(_) if last_good.elapsed() >= ttl => break,
            Err(_) => {}
        }
    }
    lost.send_replace(true);
}
