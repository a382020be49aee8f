//! A rolling deploy that changes a schema: release 3 reads and writes
//! documents of every older schema version at once (each upgraded on
//! load, the upgrade written by its next save), release 2 still running
//! beside it reads the upgraded documents but never writes them
//! (`Error::Schema`), and the deploy's migration step upgrades the rest
//! with `migrate_all`, in batches, with progress.
//!
//! The code, commented, is in `examples/features/schema_migration.rs`;
//! `tests/examples_schema.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --example schema_migration

// The outcome's fields are for the assertions of tests/examples_schema.rs.
#[allow(dead_code)]
#[path = "features/schema_migration.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("schema_migration\n");
    let client = connect::client().await?;
    let db = client.database(&format!("odm_schema_migration_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
