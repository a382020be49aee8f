//! Importing four rows with `insert_many`: one fails validation (not
//! sent), one takes an email already stored (refused by the unique index),
//! two are inserted with generated ids and timestamps.
//!
//! The code, commented, is in `examples/features/insert_many.rs`;
//! `tests/examples_bulk.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --example insert_many

// The outcome's fields are for the assertions of tests/examples_bulk.rs.
#[allow(dead_code)]
#[path = "features/insert_many.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("insert_many\n");
    // A plain driver client from MONGODB_URI, as in an application (the
    // local test server only when it is unset: examples/support/connect.rs).
    let client = connect::client().await?;
    let db = client.database(&format!("odm_insert_many_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
