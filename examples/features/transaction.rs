//! Documents that must change together: a transfer between two accounts.
//!
//! [`odm::transaction`] runs a closure in a transaction and commits it;
//! an error from the closure aborts it, and the server drops every write
//! made inside. The `Doc`s passed in as the context are rolled back in
//! memory too (value, pending changes, version), so they match the stored
//! documents again and can be used as if the transaction never ran. A
//! transient error (a write conflict, a failover) runs the closure again,
//! from the same values, as the drivers' `withTransaction` does.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", optimistic_concurrency)]
pub struct Account {
    #[serde(rename = "_id")]
    pub id: String,
    pub balance: i64,
}

/// The business rule the transfer enforces: an error of the application's
/// own, carried through the transaction by [`Error::application`].
#[derive(Debug)]
pub struct Overdraft {
    pub account: String,
}

impl std::fmt::Display for Overdraft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "account {} would go negative", self.account)
    }
}

impl std::error::Error for Overdraft {}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// Balances and versions in memory after each transfer: (alice, bob).
    pub after_commit: ((i64, Option<i64>), (i64, Option<i64>)),
    pub after_abort: ((i64, Option<i64>), (i64, Option<i64>)),
    pub pending_after_abort: bool,
    /// Stored balances at the end.
    pub stored: (i64, i64),
}

/// Moves `amount` from `from` to `to`. Both writes are sent before the
/// balance is checked, so an overdraft must be undone by the abort.
async fn transfer(
    client: &mongodb::Client,
    from: &mut Doc<Account>,
    to: &mut Doc<Account>,
    amount: i64,
) -> odm::Result<()> {
    odm::transaction(client, (from, to), move |s, (from, to)| {
        Box::pin(async move {
            from.balance -= amount;
            from.save().session(s).await?;
            to.balance += amount;
            to.save().session(s).await?;
            if from.balance < 0 {
                let account = from.id.clone();
                return Err(Error::application(Overdraft { account }));
            }
            Ok(())
        })
    })
    .await
}

async fn balance(accounts: &Model<Account>, id: &str) -> odm::Result<i64> {
    Ok(accounts.find_by_id(id).await?.expect("stored").balance)
}

fn state(a: &Doc<Account>) -> (i64, Option<i64>) {
    (a.balance, a.version())
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let accounts = Account::model(db);
    let account = |id: &str, balance| Account {
        id: id.into(),
        balance,
    };
    let mut alice = accounts.create(account("alice", 100)).await?;
    let mut bob = accounts.create(account("bob", 0)).await?;

    transfer(db.client(), &mut alice, &mut bob, 30).await?;
    let after_commit = (state(&alice), state(&bob));
    println!("alice sends bob 30: committed, (balance, version) {after_commit:?}");

    match transfer(db.client(), &mut alice, &mut bob, 500).await {
        Err(e) if e.application_error::<Overdraft>().is_some() => {
            println!("alice sends bob 500: aborted ({e})")
        }
        other => panic!("expected an Overdraft, got {other:?}"),
    }
    let after_abort = (state(&alice), state(&bob));
    let pending_after_abort = alice.changes().is_some() || bob.changes().is_some();
    println!("  the Docs are rolled back: {after_abort:?}, pending: {pending_after_abort}");

    let stored = (
        balance(&accounts, "alice").await?,
        balance(&accounts, "bob").await?,
    );
    println!("  and nothing was stored: {stored:?}");

    // The rolled-back Docs save as usual.
    transfer(db.client(), &mut alice, &mut bob, 20).await?;
    println!(
        "alice sends bob 20: committed, {:?}",
        (state(&alice), state(&bob))
    );
    Ok(Outcome {
        after_commit,
        after_abort,
        pending_after_abort,
        stored,
    })
}
