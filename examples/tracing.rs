//! Command logging: every command odm sends, as `tracing` events.
//!
//! The code, commented, is in `examples/features/tracing.rs`;
//! `tests/examples_run.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --example tracing             # DEBUG: commands, no values
//!     ODM_LOG=trace cargo run --example tracing  # TRACE: with the values

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/tracing.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    let level = match std::env::var("ODM_LOG").as_deref() {
        Ok("trace") => tracing::Level::TRACE,
        _ => tracing::Level::DEBUG,
    };
    tracing::subscriber::set_global_default(feature::subscriber(std::io::stdout, level))
        .expect("no other subscriber");
    println!("tracing, at {level}\n");
    // A plain driver client from MONGODB_URI, as in an application (the
    // local test server only when it is unset: examples/support/connect.rs).
    let client = connect::client().await?;
    let db = client.database(&format!("odm_tracing_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
