//! `chrono` and `time` fields stored as BSON dates, and `timestamps` from
//! the server's clock (features `chrono` and `time`).
//!
//! The code, commented, is in `examples/features/time_types.rs`;
//! `tests/time_types.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --features chrono,time --example time_types

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/time_types.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("time_types\n");
    // A plain driver client from MONGODB_URI, as in an application (the
    // local test server only when it is unset: examples/support/connect.rs).
    let client = connect::client().await?;
    let db = client.database(&format!("odm_time_types_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
