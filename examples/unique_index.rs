//! One account per email: `sync_indexes` creates a unique index, and the
//! losing write fails with `Error::DuplicateKey` naming it.
//!
//! The code, commented, is in `examples/features/unique_index.rs`;
//! `tests/examples_run.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else against a local SecantusDB
//! server it installs and starts itself (and stops at exit).
//!
//!     cargo run --example unique_index

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/unique_index.rs"]
mod feature;

#[tokio::main]
async fn main() -> odm::Result<()> {
    let uri = odm::testing::uri();
    let shown = odm::testing::redacted(&uri);
    println!("unique_index, against {shown}\n");
    let client = mongodb::Client::with_uri_str(&uri).await?;
    let db = client.database(&format!("odm_unique_index_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
