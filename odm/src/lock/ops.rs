//! The lease documents' operations, as pure functions: the filters and
//! update pipelines that acquire, renew and release, and what an answer
//! means. Expiry is always judged by the database's clock (`$$NOW`).
//!
//! A lease document: `{_id: key, owner: ObjectId | null, token: Int64,
//! expiresAt: Date}`. It is created by the first acquisition and never
//! deleted, so its token only grows.

use std::time::Duration;

use mongodb::bson::oid::ObjectId;
use mongodb::bson::{doc, Bson, DateTime, Document};

/// The holder of the current (or last) acquisition.
pub(crate) const OWNER: &str = "owner";
/// The fencing token: the number of grants so far.
pub(crate) const TOKEN: &str = "token";
/// When the current grant ends, by the database's clock.
pub(crate) const EXPIRES: &str = "expiresAt";

/// A ttl in milliseconds, as the server adds it to a date (at least 1).
pub(crate) fn ttl_millis(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX).max(1)
}

/// `true` (as an aggregation expression) while the current grant lasts:
/// its expiry is after the database's now. Both sides are compared as
/// milliseconds (`$toLong`): the same on MongoDB, and SecantusDB compares
/// `$$NOW` with a stored date wrongly otherwise.
fn live() -> Document {
    doc! {
        "$gt": [
            { "$toLong": { "$ifNull": [format!("${EXPIRES}"), DateTime::from_millis(0)] } },
            { "$toLong": "$$NOW" },
        ]
    }
}

/// `true` when the lease is free: never granted, released, or expired by
/// the database's clock.
fn free() -> Document {
    doc! { "$not": [live()] }
}

/// The update pipeline of an acquisition by `owner`: if the lease is free,
/// take it, count one more grant and set the expiry from `$$NOW`; else
/// leave the document as it is. Sent as one `findOneAndUpdate` on
/// `{_id: key}` with `upsert`, so the grant and the token's increment are
/// one atomic server operation, and the first one creates the document.
pub(crate) fn acquire(owner: ObjectId, ttl: Duration) -> Vec<Document> {
    let when_free = |then: Bson, otherwise: Bson| -> Bson {
        Bson::Document(doc! { "$cond": [free(), then, otherwise] })
    };
    let token = doc! { "$add": [{ "$ifNull": [format!("${TOKEN}"), 0_i64] }, 1_i64] };
    let expires = doc! { "$add": ["$$NOW", ttl_millis(ttl)] };
    vec![doc! { "$set": {
        OWNER: when_free(Bson::ObjectId(owner), Bson::String(format!("${OWNER}"))),
        TOKEN: when_free(Bson::Document(token), Bson::String(format!("${TOKEN}"))),
        EXPIRES: when_free(Bson::Document(expires), Bson::String(format!("${EXPIRES}"))),
    } }]
}

/// The acquisition's filter: the lease document of `key`.
pub(crate) fn by_key(key: &str) -> Document {
    doc! { "_id": key }
}

/// The filter of a renew or release: the lease of `key`, still granted to
/// `owner` and not expired by the database's clock. Any other holder, or
/// an expired grant, matches nothing.
pub(crate) fn held(key: &str, owner: ObjectId) -> Document {
    doc! {
        "_id": key,
        OWNER: owner,
        "$expr": live(),
    }
}

/// A renew: the grant ends `ttl` after the database's now.
pub(crate) fn renew(ttl: Duration) -> Vec<Document> {
    vec![doc! { "$set": { EXPIRES: { "$add": ["$$NOW", ttl_millis(ttl)] } } }]
}

/// A release: no owner, expired now. The token stays.
pub(crate) fn release() -> Vec<Document> {
    vec![doc! { "$set": { OWNER: Bson::Null, EXPIRES: "$$NOW" } }]
}

/// What an acquisition's answer (the lease document after the update)
/// means for `owner`: `Some(token)` when it was granted.
pub(crate) fn granted(lease: &Document, owner: ObjectId) -> Option<i64> {
    if lease.get_object_id(OWNER).ok()? != owner {
        return None;
    }
    crate::codec::integer(lease.get(TOKEN)?)
}

/// The pause before the `attempt`-th retry of a held lease (0-based):
/// exponential from 5 ms, capped at 250 ms, with full jitter from
/// `random` (any `u64`), so contenders do not retry in step.
pub(crate) fn backoff(attempt: u32, random: u64) -> Duration {
    let cap = 5u64.saturating_mul(1 << attempt.min(6)).min(250);
    // Between half the cap and the cap: never a busy loop.
    Duration::from_millis(cap / 2 + random % (cap / 2 + 1))
}

#[cfg(test)]
#[path = "ops_tests.rs"]
mod tests;
