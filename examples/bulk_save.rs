//! A nightly job closes 200 expired sessions with one `bulk_save`, while a
//! user extends one of them: that one fails with `Error::Version`, the
//! others are closed.
//!
//! The code, commented, is in `examples/features/bulk_save.rs`;
//! `tests/examples_bulk.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else against a local SecantusDB
//! server it installs and starts itself (and stops at exit).
//!
//!     cargo run --example bulk_save

// The outcome's fields are for the assertions of tests/examples_bulk.rs.
#[allow(dead_code)]
#[path = "features/bulk_save.rs"]
mod feature;

#[tokio::main]
async fn main() -> odm::Result<()> {
    let uri = odm::testing::uri();
    let shown = odm::testing::redacted(&uri);
    println!("bulk_save, against {shown}\n");
    let client = mongodb::Client::with_uri_str(&uri).await?;
    let db = client.database(&format!("odm_bulk_save_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
