//! A nightly job closes 200 expired sessions with one `bulk_save`, while a
//! user extends one of them: that one fails with `Error::Version`, the
//! others are closed.
//!
//! The code, commented, is in `examples/features/bulk_save.rs`;
//! `tests/examples_bulk.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --example bulk_save

// The outcome's fields are for the assertions of tests/examples_bulk.rs.
#[allow(dead_code)]
#[path = "features/bulk_save.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("bulk_save\n");
    // A plain driver client from MONGODB_URI, as in an application (the
    // local test server only when it is unset: examples/support/connect.rs).
    let client = connect::client().await?;
    let db = client.database(&format!("odm_bulk_save_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
