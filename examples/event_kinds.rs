//! Enum models: events of three kinds in one collection, each kind with
//! its own handle, and a checkout that becomes a purchase through a save.
//!
//! The code, commented, is in `examples/features/event_kinds.rs`;
//! `tests/examples_kinds.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --example event_kinds

// The outcome's fields are for the assertions of tests/examples_kinds.rs.
#[allow(dead_code)]
#[path = "features/event_kinds.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("event_kinds\n");
    let client = connect::client().await?;
    let db = client.database(&format!("odm_event_kinds_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
