//! Keyset pagination and typed aggregation: an activity feed served page
//! by page while others post, and a report of it by aggregation.
//!
//! The code, commented, is in `examples/features/pages.rs`;
//! `tests/examples_pages.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --example pages

// The outcome's fields are for the assertions of tests/examples_pages.rs.
#[allow(dead_code)]
#[path = "features/pages.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("pages\n");
    let client = connect::client().await?;
    let db = client.database(&format!("odm_pages_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
