//! "One free ticket per user": a check-then-insert that races when a user
//! clicks many times at once. Fixed with a `KeyedMutex` per user on one
//! instance, and with a lease per user across instances.
//!
//! The code, commented, is in `examples/features/locks_ticket.rs`;
//! `tests/examples_run.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --example locks_ticket

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/locks_ticket.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("one free ticket per user\n");
    // A plain driver client from MONGODB_URI, as in an application (the
    // local test server only when it is unset: examples/support/connect.rs).
    let client = connect::client().await?;
    let db = client.database(&format!("odm_locks_ticket_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
