//! "An email is unique unless its account is archived": a rule no partial
//! index can express (`archivedAt: {$exists: false}` is not allowed in a
//! partial filter), kept with a lease per email, across instances.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::Race;
use mongodb::bson::DateTime;
use odm::lock::Leases;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", index(keys(email = 1), name = "by_email"))]
#[serde(rename_all = "camelCase")]
struct Account {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    archived_at: Option<DateTime>,
}

enum Registered {
    Created,
    Taken,
}

fn active(email: &str) -> odm::bson::Document {
    doc! { "email": email, "archivedAt": { "$exists": false } }
}

/// One instance's registration: under the email's lease, check then insert.
async fn register(
    leases: &Leases,
    accounts: &Model<Account>,
    email: &str,
) -> odm::Result<Registered> {
    let lease = leases
        .acquire(format!("email:{email}"), Duration::from_secs(10))
        .await?;
    let outcome = if accounts.count(active(email)).await? > 0 {
        Registered::Taken
    } else {
        let mut account = accounts.new_doc(Account {
            id: ObjectId::new(),
            email: email.to_string(),
            archived_at: None,
        });
        account.save().fenced(&lease).await?;
        Registered::Created
    };
    lease.release().await?;
    Ok(outcome)
}

/// Archives the active account of `email`, under its lease, fenced.
async fn archive(leases: &Leases, accounts: &Model<Account>, email: &str) -> odm::Result<()> {
    let lease = leases
        .acquire(format!("email:{email}"), Duration::from_secs(10))
        .await?;
    for mut account in accounts.find(active(email)).await? {
        account.archived_at = Some(DateTime::now());
        account.save().fenced(&lease).await?;
    }
    lease.release().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_registrations_of_one_email_leave_one_active_account_per_round() {
    const ROUNDS: usize = 10;
    const CONTENDERS: usize = 50;
    let t = TestDb::new().await;
    let email = "ann@example.com";
    let accounts = Account::model(&t.db);
    accounts.sync_indexes().await.unwrap();
    // Each contender acts as its own instance: its own client and handles.
    let mut instances = Vec::new();
    for _ in 0..CONTENDERS {
        let client = odm_testing::client().await;
        let db = client.database(t.db.name());
        instances.push(Arc::new((
            client,
            Leases::new(&db, "locks"),
            Account::model(&db),
        )));
    }
    let mut created_per_round = Vec::new();
    for round in 0..ROUNDS {
        if round > 0 {
            archive(&instances[0].1, &accounts, email).await.unwrap();
            assert_eq!(accounts.count(active(email)).await.unwrap(), 0);
        }
        let race = Race::new(CONTENDERS);
        let tasks: Vec<_> = instances
            .iter()
            .map(|instance| {
                let instance = instance.clone();
                tokio::spawn(
                    race.clone()
                        .run(async move { register(&instance.1, &instance.2, email).await }),
                )
            })
            .collect();
        let (mut created, mut taken) = (0, 0);
        for task in tasks {
            match task.await.unwrap().unwrap() {
                Registered::Created => created += 1,
                Registered::Taken => taken += 1,
            }
        }
        assert_eq!((created, taken), (1, CONTENDERS - 1), "round {round}");
        assert!(race.most() > 1, "round {round}: the registrations raced");
        assert_eq!(
            accounts.count(active(email)).await.unwrap(),
            1,
            "round {round}"
        );
        created_per_round.push(created);
    }
    assert_eq!(created_per_round, vec![1; ROUNDS]);
    assert_eq!(
        accounts.count(doc! { "email": email }).await.unwrap(),
        ROUNDS as u64,
        "one account per round, all but the last archived"
    );
    for instance in instances {
        if let Ok((client, _, _)) = Arc::try_unwrap(instance) {
            client.shutdown().await;
        }
    }
    t.finish().await;
}
