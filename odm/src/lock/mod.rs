//! Locks: [`KeyedMutex`] for one process, [`Leases`] kept in MongoDB for
//! many instances, with fencing tokens.

mod keyed_mutex;

pub use keyed_mutex::{KeyedMutex, KeyedMutexGuard};
