//! Partial indexes with `in = [..]` and `or(..)` (MongoDB 6.0 and later)
//! against the server: "one open fuel request per vehicle",
//! where several statuses count as open, and the refusal on older servers.

use std::sync::Arc;

use mongodb::bson::{doc, Document as BsonDocument};
use odm::index::IndexErrorKind;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use tokio::sync::Barrier;

const OPEN: [&str; 3] = ["ACTIVE", "PENDING", "APPROVED"];
const INDEX: &str = "one_open_request_per_vehicle";

/// Seed 002: at most one open request per vehicle, whichever open status
/// it has; any number of DONE and CANCELLED ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "fuel_requests",
    index(
        keys(vehicle_id = 1),
        unique,
        partial(status(in = ["ACTIVE", "PENDING", "APPROVED"])),
        name = "one_open_request_per_vehicle"
    )
)]
struct FuelRequest {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(index)]
    driver: String,
    vehicle_id: String,
    status: String,
}

fn request(vehicle: &str, status: &str) -> FuelRequest {
    FuelRequest {
        id: ObjectId::new(),
        driver: "d1".into(),
        vehicle_id: vehicle.into(),
        status: status.into(),
    }
}

/// An email unique among admins and verified users; unverified users may
/// share one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts")]
struct Account {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(
        unique,
        partial(or(role = "ADMIN", and(role = "USER", verified = true)))
    )]
    email: String,
    role: String,
    verified: bool,
}

fn account(id: i64, email: &str, role: &str, verified: bool) -> Account {
    Account {
        id,
        email: email.into(),
        role: role.into(),
        verified,
    }
}

fn duplicate<T: std::fmt::Debug>(result: odm::Result<T>) -> Box<odm::DuplicateKeyError> {
    match result {
        Err(Error::DuplicateKey(e)) => e,
        other => panic!("expected Error::DuplicateKey, got {other:?}"),
    }
}

/// The indexes on the collection, as `listIndexes` returns them (none when
/// the collection does not exist).
async fn listed(db: &mongodb::Database, collection: &str) -> Vec<BsonDocument> {
    match db.run_command(doc! { "listIndexes": collection }).await {
        Ok(reply) => reply
            .get_document("cursor")
            .unwrap()
            .get_array("firstBatch")
            .unwrap()
            .iter()
            .filter_map(|i| i.as_document().cloned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

async fn listed_names(db: &mongodb::Database, collection: &str) -> Vec<String> {
    let mut names: Vec<String> = listed(db, collection)
        .await
        .iter()
        .filter_map(|i| i.get_str("name").ok())
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

/// The refusal of an index using `operator` on a server reporting `server`.
fn too_old(server: &str, operator: &str) -> IndexErrorKind {
    IndexErrorKind::ServerTooOld {
        required: "6.0".into(),
        server: server.into(),
        operators: vec![operator.into()],
    }
}

#[tokio::test]
async fn the_declared_index_sends_in_to_the_server() {
    let t = TestDb::new().await;
    let requests = FuelRequest::model(&t.db);
    let declared = doc! {
        "key": { "vehicle_id": 1 },
        "name": INDEX,
        "unique": true,
        "partialFilterExpression": { "status": { "$in": ["ACTIVE", "PENDING", "APPROVED"] } },
    };
    assert_eq!(requests.indexes()[1], declared);

    let report = requests.sync_indexes().await.unwrap();
    assert_eq!(report.created, ["driver_1", INDEX]);
    let stored = listed(&t.db, "fuel_requests").await;
    let index = stored
        .iter()
        .find(|i| i.get_str("name").ok() == Some(INDEX))
        .expect("the index is on the collection");
    assert_eq!(
        index.get_document("partialFilterExpression").unwrap(),
        &doc! { "status": { "$in": ["ACTIVE", "PENDING", "APPROVED"] } }
    );
    assert_eq!(index.get_bool("unique").ok(), Some(true));

    // Idempotent: the stored filter compares equal to the declared one.
    let again = requests.sync_indexes().await.unwrap();
    assert!(again.created.is_empty(), "{again:?}");
    assert_eq!(again.existing, ["driver_1", INDEX]);
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_open_requests_for_one_vehicle_store_exactly_one() {
    const TASKS: usize = 50;
    let t = TestDb::new().await;
    let requests = FuelRequest::model(&t.db);
    requests.sync_indexes().await.unwrap();

    for round in 0..10 {
        let vehicle = format!("truck-{round}");
        let barrier = Arc::new(Barrier::new(TASKS));
        let tasks: Vec<_> = (0..TASKS)
            .map(|i| {
                let requests = requests.clone();
                let barrier = barrier.clone();
                // Every open status is among the racers.
                let value = request(&vehicle, OPEN[i % OPEN.len()]);
                tokio::spawn(async move {
                    barrier.wait().await;
                    requests.create(value).await
                })
            })
            .collect();
        let (mut won, mut lost) = (Vec::new(), 0);
        for task in tasks {
            match task.await.unwrap() {
                Ok(doc) => won.push(doc.into_inner()),
                Err(Error::DuplicateKey(e)) => {
                    lost += 1;
                    assert_eq!(e.index.as_deref(), Some(INDEX), "round {round}: {e}");
                    assert_eq!(e.collection, "fuel_requests");
                    assert_eq!(e.key_pattern.as_deref(), Some(&doc! { "vehicle_id": 1 }));
                    assert_eq!(
                        e.key_value.as_deref(),
                        Some(&doc! { "vehicle_id": &vehicle })
                    );
                    assert!(e.to_string().contains(INDEX), "{e}");
                }
                Err(other) => panic!("round {round}: unexpected error {other}"),
            }
        }
        assert_eq!((won.len(), lost), (1, TASKS - 1), "round {round}");
        let stored = requests
            .find(doc! { "vehicle_id": &vehicle })
            .await
            .unwrap();
        assert_eq!(stored.len(), 1, "round {round}");
        assert_eq!(*stored[0], won[0], "round {round}: the winner is stored");
    }
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn closed_requests_are_not_limited() {
    const TASKS: usize = 40;
    let t = TestDb::new().await;
    let requests = FuelRequest::model(&t.db);
    requests.sync_indexes().await.unwrap();
    requests.create(request("van-1", "ACTIVE")).await.unwrap();

    // Concurrent DONE and CANCELLED requests beside the open one all land.
    let barrier = Arc::new(Barrier::new(TASKS));
    let tasks: Vec<_> = (0..TASKS)
        .map(|i| {
            let requests = requests.clone();
            let barrier = barrier.clone();
            let status = if i % 2 == 0 { "DONE" } else { "CANCELLED" };
            let value = request("van-1", status);
            tokio::spawn(async move {
                barrier.wait().await;
                requests.create(value).await
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    assert_eq!(
        requests
            .count(doc! { "vehicle_id": "van-1" })
            .await
            .unwrap(),
        TASKS as u64 + 1
    );

    // Reopening a closed request while another is open is refused, and
    // leaves the document as it was.
    let mut closed = requests
        .find_one(doc! { "vehicle_id": "van-1", "status": "DONE" })
        .await
        .unwrap()
        .unwrap();
    closed.status = "PENDING".into();
    let e = duplicate(closed.save().await);
    assert_eq!(e.index.as_deref(), Some(INDEX));
    assert_eq!(
        requests
            .count(doc! { "vehicle_id": "van-1", "status": { "$in": OPEN.to_vec() } })
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        closed.changes().map(|(_, update)| update),
        Some(doc! { "$set": { "status": "PENDING" } })
    );

    // Once the open one is done, a closed one may reopen.
    let mut open = requests
        .find_one(doc! { "vehicle_id": "van-1", "status": "ACTIVE" })
        .await
        .unwrap()
        .unwrap();
    open.status = "DONE".into();
    open.save().await.unwrap();
    closed.save().await.unwrap();
    assert_eq!(
        requests
            .count(doc! { "vehicle_id": "van-1", "status": "PENDING" })
            .await
            .unwrap(),
        1
    );
    t.finish().await;
}

#[tokio::test]
async fn an_or_filter_limits_only_the_documents_it_matches() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    assert_eq!(
        accounts.indexes()[0]
            .get_document("partialFilterExpression")
            .unwrap(),
        &doc! { "$or": [
            { "role": "ADMIN" },
            { "$and": [{ "role": "USER" }, { "verified": true }] },
        ] }
    );
    assert_eq!(accounts.sync_indexes().await.unwrap().created, ["email_1"]);
    assert_eq!(accounts.sync_indexes().await.unwrap().existing, ["email_1"]);

    // Unverified users may share an email.
    for id in 0..5 {
        accounts
            .create(account(id, "a@b.c", "USER", false))
            .await
            .unwrap();
    }
    // The first admin or verified user with it takes it ...
    accounts
        .create(account(10, "a@b.c", "ADMIN", false))
        .await
        .unwrap();
    // ... and every other branch of the `or` is refused it.
    let e = duplicate(accounts.create(account(11, "a@b.c", "ADMIN", true)).await);
    assert_eq!(e.index.as_deref(), Some("email_1"));
    let e = duplicate(accounts.create(account(12, "a@b.c", "USER", true)).await);
    assert_eq!(e.index.as_deref(), Some("email_1"));

    // An unverified user who verifies collides on save.
    let mut user = accounts.find_by_id(0_i64).await.unwrap().unwrap();
    user.verified = true;
    let e = duplicate(user.save().await);
    assert_eq!(e.index.as_deref(), Some("email_1"));
    assert_eq!(
        accounts
            .count(doc! { "email": "a@b.c", "verified": true })
            .await
            .unwrap(),
        0
    );
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 6);
    t.finish().await;
}

#[tokio::test]
async fn an_older_server_gets_none_of_the_indexes() {
    let t = TestDb::new().await;
    let requests = FuelRequest::model(&t.db);
    // 5.0.0 is what Amazon DocumentDB reports.
    for old in ["5.0.3", "5.0.0"] {
        let e = match requests.__sync_indexes_on_server_version(old).await {
            Err(Error::Index(e)) => e,
            other => panic!("expected Error::Index, got {other:?}"),
        };
        assert_eq!(e.index, INDEX);
        assert_eq!(e.collection, "fuel_requests");
        assert_eq!(e.kind, too_old(old, "$in"));
        assert_eq!(
            Error::Index(e).to_string(),
            format!(
                "index \"{INDEX}\" {{ \"key\": {{ \"vehicle_id\": 1 }}, \"name\": \"{INDEX}\", \
                 \"unique\": true, \"partialFilterExpression\": {{ \"status\": {{ \"$in\": \
                 [\"ACTIVE\", \"PENDING\", \"APPROVED\"] }} }} }} on collection \"fuel_requests\" \
                 needs MongoDB 6.0 or later: its partialFilterExpression uses $in, which the server \
                 (version {old}) does not accept in a partial index; Amazon DocumentDB, reporting \
                 5.0, does not either. No index was created. Upgrade the server, or declare the \
                 index without `in` / `or` and guard the check-then-write with a lease \
                 (odm::lock::Leases)"
            )
        );
        // Not even `driver_1`, declared before it and fine on any server.
        assert!(listed_names(&t.db, "fuel_requests").await.is_empty());
    }

    // On 6.0 both are created.
    let report = requests
        .__sync_indexes_on_server_version("6.0.0")
        .await
        .unwrap();
    assert_eq!(report.created, ["driver_1", INDEX]);
    assert_eq!(
        listed_names(&t.db, "fuel_requests").await,
        ["_id_", "driver_1", INDEX]
    );
    t.finish().await;
}

#[tokio::test]
async fn an_or_index_is_refused_on_an_older_server_too() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    match accounts.__sync_indexes_on_server_version("4.4.29").await {
        Err(Error::Index(e)) => assert_eq!(e.kind, too_old("4.4.29", "$or")),
        other => panic!("expected Error::Index, got {other:?}"),
    }
    assert!(listed_names(&t.db, "accounts").await.is_empty());
    t.finish().await;
}
