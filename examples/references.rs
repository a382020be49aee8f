//! Posts and their authors: `Ref<T>`, `find_refs` (a page's authors in
//! one query), the typed `$lookup`, and referential rules that hold when
//! a delete and a new post race for one author.
//!
//! The code, commented, is in `examples/features/references.rs`;
//! `tests/examples_refs.rs` runs it too.
//!
//! Runs against `MONGODB_URI` when set (a replica set: the rules use
//! transactions), else (saying so) against a local SecantusDB server it
//! installs and starts itself, showing the progress, and stops at exit.
//!
//!     cargo run --example references

// The outcome's fields are for the assertions of tests/examples_refs.rs.
#[allow(dead_code)]
#[path = "features/references.rs"]
mod feature;

#[path = "support/connect.rs"]
mod connect;

#[tokio::main]
async fn main() -> odm::Result<()> {
    println!("references\n");
    let client = connect::client().await?;
    let db = client.database(&format!("odm_references_{}", std::process::id()));
    let outcome = feature::run(&db).await;
    let _ = db.drop().await;
    client.shutdown().await;
    outcome.map(drop)
}
