//! Leases for the fenced-write tests.

use std::time::Duration;

use odm::lock::{Lease, Leases};

/// How long a lease that must not expire during a test is taken for.
pub const LONG: Duration = Duration::from_secs(30);

/// A stale holder (its lease expired) and the next holder, with a larger
/// token.
pub async fn stale_and_next(leases: &Leases, key: &str) -> (Lease, Lease) {
    let stale = leases.acquire(key, Duration::from_millis(1)).await.unwrap();
    let next = leases.acquire(key, LONG).await.unwrap();
    assert!(next.token() > stale.token());
    (stale, next)
}
