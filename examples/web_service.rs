//! A web service on odm: `ETag` from the version, `If-Match` on every
//! edit, `412` when stale, `428` without it; and the same service written
//! naively (load, change, `replace_one`), raced by concurrent clients:
//! the naive one loses edits, odm's none.
//!
//! The code, commented, is in `examples/features/web_service.rs`;
//! `tests/examples_run.rs` runs it too (and `tests/web_service.rs` races
//! it harder).
//!
//! Runs against `MONGODB_URI` when set, else (saying so) against a local
//! SecantusDB server it installs and starts itself, showing the progress,
//! and stops at exit. The HTTP server listens on a loopback port only.
//!
//!     cargo run --example web_service

// The outcome's fields are for the assertions of tests/examples_run.rs.
#[allow(dead_code)]
#[path = "features/web_service.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("web_service\n");
    // A plain driver client from MONGODB_URI, as in an application (the
    // local test server only when it is unset: examples/support/connect.rs).
    let client = connect::client().await?;
    let db = client.database(&format!("odm_web_service_{}", std::process::id()));
    let outcome = feature::run(&db, 8, 10).await;
    let _ = db.drop().await;
    client.shutdown().await;
    let o = outcome?;
    println!("PUT without If-Match: {}", o.without_if_match);
    println!(
        "two tabs, one ETag: first PUT {}, second PUT {} (told the current ETag: {})",
        o.first, o.second, o.second_told_current
    );
    println!(
        "PATCH with a fresh ETag: {}; with the stale one: {}",
        o.patch_fresh, o.patch_stale
    );
    println!(
        "8 clients x 10 edits, naive handler: {} acknowledged, {} lost",
        o.naive.acknowledged, o.naive.lost
    );
    println!(
        "8 clients x 10 edits, odm handler:   {} acknowledged, {} lost ({} answered 412 and redone)",
        o.odm.acknowledged, o.odm.lost, o.odm.refused
    );
    Ok(())
}
