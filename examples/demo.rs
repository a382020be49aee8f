//! The odm demo: six races a multi-instance service meets, each run by the
//! code people write first and by odm, with many tasks at once, counted.
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit.
//!
//!     cargo run --example demo              # sized for a person watching
//!     cargo run --example demo -- --quick   # a few seconds (or ODM_DEMO_QUICK=1)
//!
//! Exits non-zero if any of odm's rows shows an anomaly. The scenarios live
//! in `examples/demo/`; `tests/demo_runs.rs` runs them too.

use std::process::ExitCode;
use std::time::Instant;

#[path = "demo/mod.rs"]
mod scenarios;

#[path = "support/connect.rs"]
mod connect;

use scenarios::Size;

#[tokio::main]
async fn main() -> ExitCode {
    let quick = std::env::args().any(|a| a == "--quick")
        || std::env::var("ODM_DEMO_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let size = if quick { Size::quick() } else { Size::full() };
    // The connection string from MONGODB_URI, as in an application (the
    // local test server only when it is unset: examples/support/connect.rs).
    let uri = connect::uri();
    let shown = odm_testing::redacted(&uri);
    println!(
        "odm demo against {shown}: 6 scenarios, {} rounds each{}\n",
        size.rounds,
        if quick { " (quick)" } else { "" }
    );
    println!("{}\n", scenarios::HONESTY);

    let client = match mongodb::Client::with_uri_str(&uri).await {
        Ok(client) => client,
        Err(e) => {
            eprintln!("cannot connect to {shown}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let db = client.database(&format!("odm_demo_{}", std::process::id()));
    let start = Instant::now();
    let result = scenarios::run(&db, size).await;
    let _ = db.drop().await;
    client.shutdown().await;

    let reports = match result {
        Ok(reports) => reports,
        Err(e) => {
            eprintln!("\nthe demo failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "\nAnomalies over all rounds:\n\n{}",
        scenarios::table(&reports)
    );
    println!("total time {:.1}s", start.elapsed().as_secs_f64());
    if reports.iter().all(|r| r.ok()) {
        ExitCode::SUCCESS
    } else {
        eprintln!("an odm row is WRONG: odm let an anomaly through");
        ExitCode::FAILURE
    }
}
