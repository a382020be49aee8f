//! "An email is unique unless its account is archived." A partial unique
//! index cannot say it (`archivedAt: {$exists: false}` is not allowed in a
//! partial filter), so the rule is kept with a lease per email, and the
//! writes made under it are fenced: a holder that paused past its lease
//! cannot overwrite the next holder's work.
//!
//! Runs against `MONGODB_URI` when set, else against a local SecantusDB
//! server it installs and starts itself (and stops at exit).
//!
//!     cargo run --example archived_email

use std::time::Duration;

use odm::bson::DateTime;
use odm::lock::{Lease, Leases};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", index(keys(email = 1), name = "by_email"))]
#[serde(rename_all = "camelCase")]
pub struct Account {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub email: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<DateTime>,
}

fn active(email: &str) -> odm::bson::Document {
    doc! { "email": email, "archivedAt": { "$exists": false } }
}

async fn lease_for(leases: &Leases, email: &str) -> odm::Result<Lease> {
    leases
        .acquire(format!("email:{email}"), Duration::from_secs(10))
        .await
}

/// Registers `email` unless an active account has it: check and insert
/// under the email's lease. `false` when the email is taken.
///
/// The insert stores the lease's token, so later fenced writes to the
/// account refuse stale holders. An insert itself has no stored fence to
/// check: the check-then-insert relies on the holder finishing within the
/// ttl (keep it short, or use `Lease::keep_alive` for long work).
async fn register(
    leases: &Leases,
    accounts: &Model<Account>,
    email: &str,
    name: &str,
) -> odm::Result<bool> {
    let lease = lease_for(leases, email).await?;
    let free = accounts.count(active(email)).await? == 0;
    if free {
        let mut account = accounts.new_doc(Account {
            id: ObjectId::new(),
            email: email.into(),
            name: name.into(),
            archived_at: None,
        });
        account.save().fenced(&lease).await?;
    }
    lease.release().await?;
    Ok(free)
}

#[tokio::main]
async fn main() -> odm::Result<()> {
    let uri = odm::testing::uri();
    println!("email unique unless archived, against {uri}\n");
    let client = mongodb::Client::with_uri_str(&uri).await?;
    let db = client.database(&format!("odm_archived_email_{}", std::process::id()));
    let accounts = Account::model(&db);
    accounts.sync_indexes().await?;
    let leases = Leases::new(&db, "locks");
    let email = "ann@example.com";

    // 1. Twenty instances register the same email at once: one wins.
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let (leases, accounts) = (leases.clone(), accounts.clone());
            tokio::spawn(
                async move { register(&leases, &accounts, email, &format!("ann #{i}")).await },
            )
        })
        .collect();
    let mut created = 0;
    for task in tasks {
        created += usize::from(task.await.expect("task")?);
    }
    println!(
        "1. 20 registrations at once: {created} created, active accounts: {}",
        accounts.count(active(email)).await?
    );

    // 2. Archive it: the email is free again, the old account stays.
    let lease = lease_for(&leases, email).await?;
    let mut old = accounts.find_one(active(email)).await?.expect("active");
    old.archived_at = Some(DateTime::now());
    old.save().fenced(&lease).await?;
    lease.release().await?;
    let again = register(&leases, &accounts, email, "ann again").await?;
    println!(
        "2. archived, then registered again: {again}; accounts with the email: {}, active: {}",
        accounts.count(doc! { "email": email }).await?,
        accounts.count(active(email)).await?
    );

    // 3. A holder pauses past its ttl; the next holder renames the account;
    //    the paused holder's late write is refused, not silently applied.
    let stale = leases
        .acquire(format!("email:{email}"), Duration::from_millis(50))
        .await?;
    let mut late = accounts.find_one(active(email)).await?.expect("active");
    tokio::time::sleep(Duration::from_millis(100)).await; // the pause
    let next = lease_for(&leases, email).await?;
    let mut current = accounts.find_one(active(email)).await?.expect("active");
    current.name = "Ann (current holder)".into();
    current.save().fenced(&next).await?;
    late.name = "Ann (stale holder)".into();
    match late.save().fenced(&stale).await {
        Err(Error::Fenced(e)) => println!("3. the stale write was refused: {e}"),
        other => panic!("expected Error::Fenced, got {other:?}"),
    }
    match stale.release().await {
        Err(Error::LeaseLost(e)) => println!("   and its release says so: {e}"),
        other => panic!("expected Error::LeaseLost, got {other:?}"),
    }
    next.release().await?;
    let stored = accounts.find_one(active(email)).await?.expect("active");
    println!("   stored name: {:?}", stored.name);

    let _ = db.drop().await;
    client.shutdown().await;
    Ok(())
}
