//! Importing four rows with `insert_many`: one fails validation (not
//! sent), one takes an email already stored (refused by the unique index),
//! two are inserted with generated ids and timestamps.
//!
//! The code, commented, is in `examples/features/insert_many.rs`;
//! `tests/examples_bulk.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else against a local SecantusDB
//! server it installs and starts itself (and stops at exit).
//!
//!     cargo run --example insert_many

// The outcome's fields are for the assertions of tests/examples_bulk.rs.
#[allow(dead_code)]
#[path = "features/insert_many.rs"]
mod feature;

#[tokio::main]
async fn main() -> odm::Result<()> {
    let uri = odm::testing::uri();
    let shown = odm::testing::redacted(&uri);
    println!("insert_many, against {shown}\n");
    let client = mongodb::Client::with_uri_str(&uri).await?;
    let db = client.database(&format!("odm_insert_many_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
