//! A nightly job closes expired sessions and deletes them: `update_many`
//! and `delete_many`, keeping the version contract.
//!
//! The code, commented, is in `examples/features/set_writes.rs`;
//! `tests/examples_run.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else against a local SecantusDB
//! server it installs and starts itself (and stops at exit).
//!
//!     cargo run --example set_writes

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/set_writes.rs"]
mod feature;

#[tokio::main]
async fn main() -> odm::Result<()> {
    let uri = odm::testing::uri();
    let shown = odm::testing::redacted(&uri);
    println!("set_writes, against {shown}\n");
    let client = mongodb::Client::with_uri_str(&uri).await?;
    let db = client.database(&format!("odm_set_writes_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
