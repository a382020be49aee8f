//! "One free ticket per user": a check-then-insert that races when a user
//! clicks many times at once. Fixed with a `KeyedMutex` per user on one
//! instance, and with a lease per user across instances.
//!
//! The code, commented, is in `examples/features/locks_ticket.rs`;
//! `tests/examples_run.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else against a local SecantusDB
//! server it installs and starts itself (and stops at exit).
//!
//!     cargo run --example locks_ticket

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/locks_ticket.rs"]
mod feature;

#[tokio::main]
async fn main() -> odm::Result<()> {
    let uri = odm::testing::uri();
    let shown = odm::testing::redacted(&uri);
    println!("one free ticket per user, against {shown}\n");
    let client = mongodb::Client::with_uri_str(&uri).await?;
    let db = client.database(&format!("odm_locks_ticket_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
