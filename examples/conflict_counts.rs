//! Conflict telemetry: every stale write, fenced refusal, retry, resent
//! upsert and write in doubt is one `tracing` event (target
//! `odm::conflict`); a small layer counts them per model.
//!
//! The code, commented, is in `examples/features/conflict_counts.rs`;
//! `tests/examples_run.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --example conflict_counts

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/conflict_counts.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer as _;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("conflict_counts\n");
    // The counting layer, and the events printed as they come.
    let counter = feature::ConflictCounter::default();
    let printed = tracing_subscriber::fmt::layer().without_time().with_filter(
        tracing_subscriber::filter::filter_fn(|m| m.target() == "odm::conflict"),
    );
    let subscriber = tracing_subscriber::registry()
        .with(counter.clone())
        .with(printed);
    tracing::subscriber::set_global_default(subscriber).expect("no other subscriber");
    // A plain driver client from MONGODB_URI, as in an application (the
    // local test server only when it is unset: examples/support/connect.rs).
    let client = connect::client().await?;
    let db = client.database(&format!("odm_conflict_counts_{}", std::process::id()));
    let outcome = feature::run(&db, &counter).await;
    let _ = db.drop().await;
    client.shutdown().await;
    let outcome = outcome?;
    println!(
        "\ncounter {} after {} increments; the stale member's store changed {:?}",
        outcome.value, outcome.increments, outcome.stored_changes
    );
    println!("conflicts per (model, operation, outcome):");
    for ((model, operation, outcome), n) in &outcome.counts {
        println!("  {model:<8} {operation:<18} {outcome:<8} {n}");
    }
    Ok(())
}
