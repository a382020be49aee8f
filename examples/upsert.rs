//! The first request of a new user on several instances at once: `upsert`
//! with `$set` and `$setOnInsert` stores one user.
//!
//! The code, commented, is in `examples/features/upsert.rs`;
//! `tests/examples_run.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else against a local SecantusDB
//! server it installs and starts itself (and stops at exit).
//!
//!     cargo run --example upsert

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/upsert.rs"]
mod feature;

#[tokio::main]
async fn main() -> odm::Result<()> {
    let uri = odm::testing::uri();
    let shown = odm::testing::redacted(&uri);
    println!("upsert, against {shown}\n");
    let client = mongodb::Client::with_uri_str(&uri).await?;
    let db = client.database(&format!("odm_upsert_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
