//! One account per email.
//!
//! "Check that no account has the email, then insert" races: two
//! registrations both find none and both insert. A unique index cannot
//! race. Declare it with `#[odm(unique)]`, create it with
//! [`Model::sync_indexes`] (at startup; it reports what it created and
//! leaves existing indexes alone), and the losing insert or save fails with
//! [`Error::DuplicateKey`], naming the index and the key.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "accounts")]
pub struct Account {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[odm(unique)]
    pub email: String,
    pub name: String,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// Indexes the first `sync_indexes` created, and the second found.
    pub created: Vec<String>,
    pub existing: Vec<String>,
    pub registered: usize,
    /// The index named by every refused registration.
    pub refused_by: Vec<Option<String>>,
    /// After renaming an account's email to a taken one: the index that
    /// refused the save, and whether the change is still pending.
    pub rename_refused_by: Option<String>,
    pub rename_pending: bool,
}

fn account(email: &str, name: &str) -> Account {
    Account {
        id: ObjectId::new(),
        email: email.into(),
        name: name.into(),
    }
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let accounts = Account::model(db);
    let first = accounts.sync_indexes().await?;
    let second = accounts.sync_indexes().await?;
    println!(
        "sync_indexes created {:?}; run again: existing {:?}",
        first.created, second.existing
    );

    // Ten registrations of one email at once: the index lets one in.
    let tasks: Vec<_> = (0..10)
        .map(|i| {
            let accounts = accounts.clone();
            let ann = account("ann@example.com", &format!("Ann #{i}"));
            tokio::spawn(async move { accounts.create(ann).await })
        })
        .collect();
    let (mut registered, mut refused_by) = (0, Vec::new());
    for task in tasks {
        match task.await.expect("task") {
            Ok(_) => registered += 1,
            Err(Error::DuplicateKey(e)) => {
                if refused_by.is_empty() {
                    println!("refused: {e}");
                }
                refused_by.push(e.index);
            }
            Err(e) => return Err(e),
        }
    }
    println!(
        "10 registrations at once: {registered} registered, {} refused",
        refused_by.len()
    );

    // A save that changes an email to a taken one is refused the same way,
    // and the document keeps its change pending (fix it, or reload).
    let mut bob = accounts.create(account("bob@example.com", "Bob")).await?;
    bob.email = "ann@example.com".into();
    let rename_refused_by = match bob.save().await {
        Err(Error::DuplicateKey(e)) => {
            println!("bob takes ann's email: {e}");
            e.index
        }
        other => panic!("expected Error::DuplicateKey, got {other:?}"),
    };
    let rename_pending = bob.changes().is_some();
    println!("bob's change still pending: {:?}", bob.modified_paths());
    Ok(Outcome {
        created: first.created,
        existing: second.existing,
        registered,
        refused_by,
        rename_refused_by,
        rename_pending,
    })
}
