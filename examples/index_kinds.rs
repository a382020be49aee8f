//! Index kinds: TTL, a case-insensitive unique index (collation), 2dsphere
//! and text, declared on the struct and created by `sync_indexes`.
//!
//! The code, commented, is in `examples/features/index_kinds.rs`;
//! `tests/examples_index_kinds.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --example index_kinds

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/index_kinds.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("index_kinds\n");
    // A plain driver client from MONGODB_URI, as in an application (the
    // local test server only when it is unset: examples/support/connect.rs).
    let client = connect::client().await?;
    let db = client.database(&format!("odm_index_kinds_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
