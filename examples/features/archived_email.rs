//! "An email is unique unless its account is archived." A partial unique
//! index cannot say it (`archivedAt: {$exists: false}` is not allowed in a
//! partial filter), so the rule is kept with a lease per email, and the
//! writes made under it are fenced: a holder that paused past its lease
//! cannot overwrite the next holder's work.

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

/// What the run saw.
#[derive(Debug)]
pub struct Outcome {
    /// Accounts created by 20 simultaneous registrations of one email.
    pub created: u64,
    /// After archiving: whether the email registered again, how many
    /// accounts have it, how many of those are active.
    pub again: bool,
    pub with_email: u64,
    pub active_after: u64,
    /// The paused holder's late write was refused with `Error::Fenced`.
    pub stale_refused: bool,
    /// Its release reported `Error::LeaseLost`.
    pub stale_release_lost: bool,
    /// The name stored in the end.
    pub stored_name: String,
}

/// The rule under concurrent registrations, archiving, and a stalled holder.
pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let accounts = Account::model(db);
    accounts.sync_indexes().await?;
    let leases = Leases::new(db, "locks");
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
    let mut created = 0u64;
    for task in tasks {
        created += u64::from(task.await.expect("task")?);
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
    let (with_email, active_after) = (
        accounts.count(doc! { "email": email }).await?,
        accounts.count(active(email)).await?,
    );
    println!(
        "2. archived, then registered again: {again}; accounts with the email: {with_email}, active: {active_after}"
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
    let stale_refused = match late.save().fenced(&stale).await {
        Err(Error::Fenced(e)) => {
            println!("3. the stale write was refused: {e}");
            true
        }
        other => {
            println!("3. the stale write was NOT refused: {other:?}");
            false
        }
    };
    let stale_release_lost = match stale.release().await {
        Err(Error::LeaseLost(e)) => {
            println!("   and its release says so: {e}");
            true
        }
        other => {
            println!("   its release did not report the loss: {other:?}");
            false
        }
    };
    next.release().await?;
    let stored = accounts.find_one(active(email)).await?.expect("active");
    println!("   stored name: {:?}", stored.name);
    Ok(Outcome {
        created,
        again,
        with_email,
        active_after,
        stale_refused,
        stale_release_lost,
        stored_name: stored.name.clone(),
    })
}
