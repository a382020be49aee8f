//! Atomic operations: the fixes for the four classic races.
//!
//! | race | fix |
//! |---|---|
//! | find, then insert or update: two instances both insert | [`Model::upsert`](crate::Model::upsert): one `findOneAndUpdate` with `upsert`, `$set` + `$setOnInsert` |
//! | several workers poll the same pending tasks | [`Model::claim`](crate::Model::claim): a conditional update whose filter holds the guarded field |
//! | read-modify-write loses updates | [`Model::update_with_retry`](crate::Model::update_with_retry): a version-checked save, reloaded and reapplied on conflict |
//! | several documents must change together | [`transaction`](crate::transaction) |
//!
//! Plus `#[odm(timestamps)]`, kept by saves, upserts and claims.

pub(crate) mod claim;
mod retry;
mod rollback;
mod transaction;

pub use claim::Claim;
pub use retry::UpdateWithRetry;
pub use rollback::{DocCheckpoint, Rollback};
pub use transaction::{transaction, Transaction};
pub use upsert::Upsert;

pub(crate) mod upsert;
