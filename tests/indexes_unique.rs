//! Declared unique, sparse, partial and compound indexes against the
//! server: what they accept, what they refuse, and the `DuplicateKey` error
//! each refusal gives.

use crate::common;

use common::Race;
use mongodb::bson::{doc, Document as BsonDocument};
use odm::prelude::*;
use odm::DuplicateKeyError;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(unique)]
    email: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "members")]
struct Member {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(unique, sparse)]
    #[serde(skip_serializing_if = "Option::is_none")]
    nickname: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "ride_requests")]
struct RideRequest {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(unique, partial(status = "ACTIVE"))]
    vehicle_id: String,
    status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[serde(rename_all = "camelCase")]
#[odm(collection = "pages", index(keys(tenant_id = 1, slug = -1), unique))]
struct Page {
    #[serde(rename = "_id")]
    id: i64,
    tenant_id: String,
    slug: String,
}

/// The duplicate-key error of `result`, or a panic naming what came instead.
fn duplicate<T: std::fmt::Debug>(result: odm::Result<T>) -> DuplicateKeyError {
    match result {
        Err(Error::DuplicateKey(e)) => *e,
        other => panic!("expected Error::DuplicateKey, got {other:?}"),
    }
}

async fn count_where(collection: &mongodb::Collection<BsonDocument>, filter: BsonDocument) -> u64 {
    collection.count_documents(filter).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_creates_with_one_email_store_exactly_one() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let report = users.sync_indexes().await.unwrap();
    assert_eq!(report.created, ["email_1"]);

    for round in 0..20 {
        let email = format!("racer{round}@example.com");
        let race = Race::new(50);
        let tasks: Vec<_> = (0..50)
            .map(|_| {
                let users = users.clone();
                let email = email.clone();
                tokio::spawn(race.clone().run(async move {
                    users
                        .create(User {
                            id: ObjectId::new(),
                            email,
                        })
                        .await
                }))
            })
            .collect();
        let (mut ok, mut dup) = (0, 0);
        for task in tasks {
            match task.await.unwrap() {
                Ok(_) => ok += 1,
                Err(Error::DuplicateKey(e)) => {
                    dup += 1;
                    assert_eq!(e.index.as_deref(), Some("email_1"), "round {round}: {e}");
                    assert_eq!(e.collection, "users");
                    assert_eq!(e.key_pattern.as_deref(), Some(&doc! { "email": 1 }));
                    assert_eq!(e.key_value.as_deref(), Some(&doc! { "email": &email }));
                }
                Err(other) => panic!("round {round}: unexpected error {other}"),
            }
        }
        assert_eq!((ok, dup), (1, 49), "round {round}");
        assert!(race.most() > 1, "round {round}: the creates raced");
        assert_eq!(users.count(doc! { "email": &email }).await.unwrap(), 1);
    }
    assert_eq!(users.count(doc! {}).await.unwrap(), 20);
    t.finish().await;
}

#[tokio::test]
async fn duplicate_key_error_names_index_key_and_collection() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    users.sync_indexes().await.unwrap();
    let id = ObjectId::new();
    users
        .create(User {
            id,
            email: "a@b.c".into(),
        })
        .await
        .unwrap();

    let e = duplicate(
        users
            .create(User {
                id: ObjectId::new(),
                email: "a@b.c".into(),
            })
            .await,
    );
    assert_eq!(e.index.as_deref(), Some("email_1"));
    assert_eq!(e.key.as_deref(), Some("{ email: \"a@b.c\" }"));
    assert_eq!(
        e.to_string(),
        "duplicate key in collection \"users\" on index \"email_1\": { email: ? }"
    );
    assert_eq!(
        common::with_values(|| e.to_string()),
        "duplicate key in collection \"users\" on index \"email_1\": { email: \"a@b.c\" }"
    );

    // The same _id twice: the server's own `_id_` index.
    let e = duplicate(
        users
            .create(User {
                id,
                email: "other@b.c".into(),
            })
            .await,
    );
    assert_eq!(e.index.as_deref(), Some("_id_"));
    assert_eq!(e.key_value.as_deref(), Some(&doc! { "_id": id }));
    t.finish().await;
}

#[tokio::test]
async fn a_save_that_collides_fails_with_duplicate_key_and_keeps_its_changes() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    users.sync_indexes().await.unwrap();
    users
        .create(User {
            id: ObjectId::new(),
            email: "taken@b.c".into(),
        })
        .await
        .unwrap();
    let mut u = users
        .create(User {
            id: ObjectId::new(),
            email: "free@b.c".into(),
        })
        .await
        .unwrap();

    u.email = "taken@b.c".into();
    let e = duplicate(u.save().await);
    assert_eq!(e.index.as_deref(), Some("email_1"));
    assert_eq!(e.key_value.as_deref(), Some(&doc! { "email": "taken@b.c" }));
    // Nothing was written, the change is still pending, the version unchanged.
    let stored = users.find_by_id(u.id).await.unwrap().unwrap();
    assert_eq!(stored.email, "free@b.c");
    assert_eq!(u.modified_paths(), ["email"]);
    assert_eq!(u.version(), Some(0));

    u.email = "new@b.c".into();
    u.save().await.unwrap();
    assert_eq!(
        users.find_by_id(u.id).await.unwrap().unwrap().email,
        "new@b.c"
    );
    t.finish().await;
}

#[tokio::test]
async fn sparse_unique_accepts_many_documents_without_the_field() {
    let t = TestDb::new().await;
    let members = Member::model(&t.db);
    assert_eq!(
        members.sync_indexes().await.unwrap().created,
        ["nickname_1"]
    );

    for id in 0..25 {
        members.create(Member { id, nickname: None }).await.unwrap();
    }
    let raw = members.collection();
    assert_eq!(
        count_where(raw, doc! { "nickname": { "$exists": false } }).await,
        25
    );

    members
        .create(Member {
            id: 100,
            nickname: Some("ace".into()),
        })
        .await
        .unwrap();
    let e = duplicate(
        members
            .create(Member {
                id: 101,
                nickname: Some("ace".into()),
            })
            .await,
    );
    assert_eq!(e.index.as_deref(), Some("nickname_1"));
    assert_eq!(e.collection, "members");

    // A document without a nickname that later takes a used one collides too.
    let mut m = members.find_by_id(3_i64).await.unwrap().unwrap();
    m.nickname = Some("ace".into());
    assert_eq!(
        duplicate(m.save().await).index.as_deref(),
        Some("nickname_1")
    );
    assert_eq!(members.count(doc! { "nickname": "ace" }).await.unwrap(), 1);
    t.finish().await;
}

#[tokio::test]
async fn partial_unique_allows_one_active_request_per_vehicle() {
    let t = TestDb::new().await;
    let requests = RideRequest::model(&t.db);
    assert_eq!(
        requests.sync_indexes().await.unwrap().created,
        ["vehicle_id_1"]
    );
    let request = |id: i64, vehicle: &str, status: &str| RideRequest {
        id,
        vehicle_id: vehicle.into(),
        status: status.into(),
    };

    for id in 0..10 {
        requests
            .create(request(id, "v1", "COMPLETE"))
            .await
            .unwrap();
    }
    requests.create(request(10, "v1", "ACTIVE")).await.unwrap();
    requests.create(request(11, "v2", "ACTIVE")).await.unwrap();
    requests
        .create(request(12, "v1", "COMPLETE"))
        .await
        .unwrap();

    let e = duplicate(requests.create(request(13, "v1", "ACTIVE")).await);
    assert_eq!(e.index.as_deref(), Some("vehicle_id_1"));
    assert_eq!(e.key_value.as_deref(), Some(&doc! { "vehicle_id": "v1" }));

    // A save that turns a COMPLETE request ACTIVE is refused the same way.
    let mut done = requests.find_by_id(3_i64).await.unwrap().unwrap();
    done.status = "ACTIVE".into();
    let e = duplicate(done.save().await);
    assert_eq!(e.index.as_deref(), Some("vehicle_id_1"));
    assert_eq!(done.modified_paths(), ["status"]);
    let filter = doc! { "vehicle_id": "v1", "status": "ACTIVE" };
    assert_eq!(requests.count(filter.clone()).await.unwrap(), 1);

    // Once the active one completes, the other may become active.
    let mut active = requests.find_by_id(10_i64).await.unwrap().unwrap();
    active.status = "COMPLETE".into();
    active.save().await.unwrap();
    done.save().await.unwrap();
    let now_active = requests.find_one(filter).await.unwrap().unwrap();
    assert_eq!(now_active.id, 3);
    assert_eq!(
        requests.count(doc! { "vehicle_id": "v1" }).await.unwrap(),
        12
    );
    t.finish().await;
}

#[tokio::test]
async fn compound_unique_index_uses_bson_names_and_refuses_only_the_pair() {
    let t = TestDb::new().await;
    let pages = Page::model(&t.db);
    let report = pages.sync_indexes().await.unwrap();
    assert_eq!(report.created, ["tenantId_1_slug_-1"]);
    let page = |id: i64, tenant: &str, slug: &str| Page {
        id,
        tenant_id: tenant.into(),
        slug: slug.into(),
    };

    pages.create(page(1, "t1", "home")).await.unwrap();
    pages.create(page(2, "t2", "home")).await.unwrap();
    pages.create(page(3, "t1", "about")).await.unwrap();
    let e = duplicate(pages.create(page(4, "t1", "home")).await);
    assert_eq!(e.index.as_deref(), Some("tenantId_1_slug_-1"));
    assert_eq!(
        e.key_pattern.as_deref(),
        Some(&doc! { "tenantId": 1, "slug": -1 })
    );
    assert_eq!(
        e.key_value.as_deref(),
        Some(&doc! { "tenantId": "t1", "slug": "home" })
    );

    let mut p = pages.find_by_id(3_i64).await.unwrap().unwrap();
    p.slug = "home".into();
    assert_eq!(
        duplicate(p.save().await).index.as_deref(),
        Some("tenantId_1_slug_-1")
    );
    assert_eq!(pages.count(doc! {}).await.unwrap(), 3);
    t.finish().await;
}
