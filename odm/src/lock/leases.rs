//! `Leases`: acquiring a lease kept in a MongoDB collection.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant};

use mongodb::bson::oid::ObjectId;
use mongodb::bson::Document;
use mongodb::options::ReturnDocument;
use mongodb::{Collection, Database};

use super::lease::Lease;
use super::ops;
use crate::error::{from_driver, may_have_applied, Error, LeaseTimeoutError, Result};
use crate::wire::command_log::Command;

/// How often an acquisition is sent again when the server answers "ok"
/// without a document (never on MongoDB; about 1% of contended upserts on
/// SecantusDB), or loses the race to create the lease document (E11000).
const RESENDS: usize = 8;

/// Leases kept in one collection: one lease per key, across every
/// instance that uses the collection. Nothing else to run or install.
///
/// - Acquiring is one `findOneAndUpdate` with `upsert` and an update
///   pipeline: the lease document is created on first use, and the grant
///   and its token are decided atomically by the server.
/// - Expiry is judged by the database's clock (`$$NOW`), never the
///   caller's: instances with skewed clocks still exclude each other.
/// - Every acquisition has its own owner id; [`Lease::renew`] and
///   [`Lease::release`] match on it, so a holder whose lease expired gets
///   [`Error::LeaseLost`], not a silent success.
/// - [`Lease::token`] is a per-key fencing token that strictly increases
///   forever: release keeps the document, and nothing expires it (do not
///   put a TTL index on the collection). Pass the lease to a fenced write
///   ([`Save::fenced`](crate::Save::fenced)) so that a holder that paused
///   past its ttl cannot overwrite the next holder's work.
///
/// Cheap to clone.
#[derive(Clone, Debug)]
pub struct Leases {
    collection: Collection<Document>,
}

impl Leases {
    /// The leases kept in `collection` of `db`.
    ///
    /// Every lease operation (acquire, renew, release) is sent with write
    /// concern `majority` and read preference `primary`, whatever the
    /// client or database defaults are: a grant acknowledged by a majority
    /// survives a failover, so no two holders get the same token (see
    /// the save rules, "Leases across a replica set").
    pub fn new(db: &Database, collection: &str) -> Self {
        Leases {
            collection: db.collection_with_options(collection, crate::wire::fence::options()),
        }
    }

    /// The collection holding the lease documents.
    pub fn collection(&self) -> &Collection<Document> {
        &self.collection
    }

    /// Takes the lease of `key` for `ttl` (by the database's clock),
    /// waiting with backoff and jitter while another holder has it.
    pub async fn acquire(&self, key: impl Into<String>, ttl: Duration) -> Result<Lease> {
        self.acquire_within(key.into(), ttl, None).await
    }

    /// [`acquire`](Leases::acquire), giving up after `wait` with
    /// [`Error::LeaseTimeout`].
    pub async fn acquire_timeout(
        &self,
        key: impl Into<String>,
        ttl: Duration,
        wait: Duration,
    ) -> Result<Lease> {
        self.acquire_within(key.into(), ttl, Some(wait)).await
    }

    /// One attempt: the lease of `key` for `ttl`, or `None` when another
    /// holder has it.
    pub async fn try_acquire(
        &self,
        key: impl Into<String>,
        ttl: Duration,
    ) -> Result<Option<Lease>> {
        self.attempt(key.into(), ttl).await
    }

    async fn acquire_within(
        &self,
        key: String,
        ttl: Duration,
        wait: Option<Duration>,
    ) -> Result<Lease> {
        let start = Instant::now();
        let random = RandomState::new();
        let mut attempt = 0u32;
        loop {
            if let Some(lease) = self.attempt(key.clone(), ttl).await? {
                return Ok(lease);
            }
            let mut pause = ops::backoff(attempt, jitter(&random, attempt));
            if let Some(wait) = wait {
                let left = wait.saturating_sub(start.elapsed());
                if left.is_zero() {
                    return Err(Error::LeaseTimeout(Box::new(LeaseTimeoutError {
                        key,
                        waited: start.elapsed(),
                    })));
                }
                pause = pause.min(left);
            }
            tokio::time::sleep(pause).await;
            attempt = attempt.saturating_add(1);
        }
    }

    /// One acquisition: one server operation (sent again only when the
    /// server's answer is empty, the first insert raced, or the outcome is
    /// in doubt).
    async fn attempt(&self, key: String, ttl: Duration) -> Result<Option<Lease>> {
        let owner = ObjectId::new();
        let mut resends = 0;
        let mut resent_in_doubt = false;
        loop {
            let (filter, update) = (ops::by_key(&key), ops::acquire(owner, ttl));
            let log = Command::new(self.collection.name(), "findAndModify")
                .filter(&filter)
                .update(update.as_slice());
            let action = self
                .collection
                .find_one_and_update(filter, update)
                .upsert(true)
                .return_document(ReturnDocument::After);
            let answer = log.send(action).await;
            match answer {
                Ok(Some(lease)) => {
                    return Ok(ops::granted(&lease, owner)
                        .map(|token| Lease::new(self.collection.clone(), key, owner, token, ttl)));
                }
                Ok(None) if resends < RESENDS => resends += 1,
                Ok(None) => return Ok(None),
                // The acquisition may have landed (a lost connection, a
                // write concern error): sent once more with the same
                // owner, it finds the lease ours instead of leaving it
                // held by nobody until the ttl runs out.
                Err(e) if !resent_in_doubt && may_have_applied(&e) => resent_in_doubt = true,
                Err(e) => match from_driver(e, self.collection.name()) {
                    // Two first acquisitions both inserted: the document
                    // exists now, so the same update finds it.
                    Error::DuplicateKey(_) if resends < RESENDS => resends += 1,
                    e => return Err(e),
                },
            }
        }
    }
}

/// A random number for the `attempt`-th pause (std's hasher keys are
/// random per process and per `RandomState`).
fn jitter(random: &RandomState, attempt: u32) -> u64 {
    let mut hasher = random.build_hasher();
    hasher.write_u32(attempt);
    hasher.finish()
}
