//! Locks: [`KeyedMutex`] within one process, [`Leases`] kept in MongoDB
//! across instances, with fencing tokens that fenced writes
//! ([`Save::fenced`](crate::Save::fenced)) check.

mod keyed_mutex;
mod lease;
mod leases;
pub(crate) mod ops;

pub use keyed_mutex::{KeyedMutex, KeyedMutexGuard};
pub use lease::Lease;
pub use leases::Leases;
