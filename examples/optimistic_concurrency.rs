//! Two stale copies under a cross-field rule: with `optimistic_concurrency`
//! the second save fails with `Error::Version` instead of breaking the rule.
//!
//! The code, commented, is in `examples/features/optimistic_concurrency.rs`;
//! `tests/examples_run.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else against a local SecantusDB
//! server it installs and starts itself (and stops at exit).
//!
//!     cargo run --example optimistic_concurrency

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/optimistic_concurrency.rs"]
mod feature;

#[tokio::main]
async fn main() -> odm::Result<()> {
    let uri = odm::testing::uri();
    let shown = odm::testing::redacted(&uri);
    println!("optimistic_concurrency, against {shown}\n");
    let client = mongodb::Client::with_uri_str(&uri).await?;
    let db = client.database(&format!(
        "odm_optimistic_concurrency_{}",
        std::process::id()
    ));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
