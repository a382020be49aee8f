//! The reads of issue 19 that go with typed paths: `exists`, `distinct`
//! (typed by the field), `estimated_count`, lean finds (plain `T`, not
//! tracked) and projections into a smaller type, against the server: the
//! values returned and the command sent. Saving a projection is a compile
//! error (`tests/ui/typed-projection-save.rs`).

use crate::common;

use common::Monitored;
use futures_util::TryStreamExt;
use mongodb::bson::{doc, Bson};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", optimistic_concurrency)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    #[serde(rename = "_id")]
    pub id: i32,
    pub display_name: String,
    pub status: String,
    pub nickname: Option<String>,
    pub tags: Vec<String>,
    pub balance: i64,
}

/// A smaller view: two fields, one renamed like the model's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
#[serde(rename_all = "camelCase")]
pub struct AccountName {
    #[serde(rename = "_id")]
    pub id: i32,
    pub display_name: String,
}

fn account(id: i32, status: &str, nickname: Option<&str>, tags: &[&str]) -> Account {
    Account {
        id,
        display_name: format!("user {id}"),
        status: status.into(),
        nickname: nickname.map(str::to_string),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        balance: i64::from(id) * 100,
    }
}

async fn seeded(label: &str) -> (Monitored, Model<Account>, Vec<Account>) {
    let m = Monitored::new(label).await;
    let accounts = Model::<Account>::new(m.db());
    let all = vec![
        account(1, "ACTIVE", Some("a"), &["x", "y"]),
        account(2, "PENDING", None, &["y"]),
        account(3, "ACTIVE", Some("c"), &[]),
        account(4, "CLOSED", None, &["z", "x"]),
    ];
    for value in &all {
        accounts.create(value.clone()).await.unwrap();
    }
    m.monitor.clear();
    (m, accounts, all)
}

#[tokio::test]
async fn exists_reads_one_id_at_most() {
    let (m, accounts, _) = seeded("typed-exists").await;
    let f = Account::fields();
    assert!(accounts.exists(f.status().eq("CLOSED")).await.unwrap());
    assert!(!accounts.exists(f.status().eq("GONE")).await.unwrap());
    assert!(accounts.exists(doc! {}).await.unwrap());
    let finds = m.monitor.named("find");
    assert_eq!(finds.len(), 3);
    let sent = &finds[0].command;
    assert_eq!(
        sent.get_document("filter").unwrap(),
        &doc! { "status": "CLOSED" }
    );
    assert_eq!(sent.get_document("projection").unwrap(), &doc! { "_id": 1 });
    assert!(
        matches!(sent.get("limit"), Some(Bson::Int32(1) | Bson::Int64(1))),
        "{sent}"
    );
    // In a session.
    let mut session = m.client().start_session().await.unwrap();
    let found = accounts
        .exists(f.id().eq(2))
        .session(&mut session)
        .await
        .unwrap();
    assert!(found);
    assert!(m
        .monitor
        .named("find")
        .last()
        .unwrap()
        .command
        .contains_key("lsid"));
    drop(session); // the client's shutdown waits for its sessions
    m.finish().await;
}

#[tokio::test]
async fn distinct_values_are_typed_by_the_field() {
    let (m, accounts, _) = seeded("typed-distinct").await;
    let f = Account::fields();
    let mut statuses = accounts.distinct(f.status(), doc! {}).await.unwrap();
    statuses.sort();
    assert_eq!(statuses, vec!["ACTIVE", "CLOSED", "PENDING"]);

    // An array field: the distinct elements (name the element type).
    let mut tags: Vec<String> = accounts
        .distinct(f.tags(), f.status().ne("CLOSED"))
        .await
        .unwrap();
    tags.sort();
    assert_eq!(tags, vec!["x", "y"]);
    let sent = m.monitor.named("distinct").last().unwrap().command.clone();
    assert_eq!(sent.get_str("key").unwrap(), "tags");
    assert_eq!(
        sent.get_document("query").unwrap(),
        &doc! { "status": { "$ne": "CLOSED" } }
    );

    // An `Option` field: a stored null is `None`.
    let mut nicknames = accounts.distinct(f.nickname(), doc! {}).await.unwrap();
    nicknames.sort();
    assert_eq!(
        nicknames,
        vec![None, Some("a".to_string()), Some("c".to_string())]
    );

    let balances = accounts.distinct(f.balance(), f.id().lte(2)).await.unwrap();
    let mut balances: Vec<i64> = balances;
    balances.sort();
    assert_eq!(balances, vec![100, 200]);

    // A value that does not decode names the collection and the field.
    accounts
        .collection()
        .insert_one(doc! { "_id": 9, "displayName": "bad", "status": 7, "tags": [], "balance": 1 })
        .await
        .unwrap();
    let err = accounts.distinct(f.status(), doc! {}).await.unwrap_err();
    match &err {
        Error::Deserialize(e) => {
            assert_eq!(
                (e.collection.as_str(), e.path.as_str()),
                ("accounts", "status")
            );
        }
        other => panic!("expected a Deserialize error, got {other:?}"),
    }
    m.finish().await;
}

#[tokio::test]
async fn estimated_count_reads_the_collection_metadata() {
    let (m, accounts, all) = seeded("typed-estimated").await;
    assert_eq!(accounts.estimated_count().await.unwrap(), all.len() as u64);
    let sent = m.monitor.named("count");
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].command.get_str("count").unwrap(), "accounts");
    assert!(!sent[0].command.contains_key("query"));
    let mut session = m.client().start_session().await.unwrap();
    let n = accounts
        .estimated_count()
        .session(&mut session)
        .await
        .unwrap();
    assert_eq!(n, 4);
    assert!(m
        .monitor
        .named("count")
        .last()
        .unwrap()
        .command
        .contains_key("lsid"));
    drop(session);
    m.finish().await;
}

#[tokio::test]
async fn lean_finds_return_plain_values_without_the_version() {
    let (m, accounts, all) = seeded("typed-lean").await;
    let f = Account::fields();
    let lean: Vec<Account> = accounts
        .find(f.status().eq("ACTIVE"))
        .sort(f.id().asc())
        .lean()
        .await
        .unwrap();
    assert_eq!(lean, vec![all[0].clone(), all[2].clone()]);
    // The builder's options also after `.lean()`.
    let lean = accounts
        .find(doc! {})
        .lean()
        .sort(f.id().desc())
        .limit(1)
        .await
        .unwrap();
    assert_eq!(lean, vec![all[3].clone()]);
    let sent = m.monitor.named("find").last().unwrap().command.clone();
    assert_eq!(sent.get_document("sort").unwrap(), &doc! { "_id": -1 });

    // As a stream, inside a session.
    let mut session = m.client().start_session().await.unwrap();
    let streamed: Vec<Account> = accounts
        .find(f.tags().contains("x"))
        .lean()
        .batch_size(1)
        .session(&mut session)
        .stream()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let mut ids: Vec<i32> = streamed.iter().map(|a| a.id).collect();
    ids.sort();
    assert_eq!(ids, vec![1, 4]);
    assert!(m
        .monitor
        .named("find")
        .last()
        .unwrap()
        .command
        .contains_key("lsid"));
    drop(session);

    // A document that does not decode is an error naming its id and field.
    accounts
        .collection()
        .insert_one(doc! { "_id": 9, "displayName": "bad", "status": "ACTIVE", "tags": [], "balance": "lots" })
        .await
        .unwrap();
    let err = accounts.find(f.id().eq(9)).lean().await.unwrap_err();
    match &err {
        Error::Deserialize(e) => assert_eq!((&e.id, e.path.as_str()), (&Bson::Int32(9), "balance")),
        other => panic!("expected a Deserialize error, got {other:?}"),
    }
    m.finish().await;
}

#[tokio::test]
async fn projections_read_only_their_fields() {
    let (m, accounts, _) = seeded("typed-projection").await;
    let f = Account::fields();
    let names: Vec<AccountName> = accounts
        .find(f.status().eq("ACTIVE"))
        .projection::<AccountName>()
        .sort(f.id().asc())
        .await
        .unwrap();
    assert_eq!(
        names,
        vec![
            AccountName {
                id: 1,
                display_name: "user 1".into()
            },
            AccountName {
                id: 3,
                display_name: "user 3".into()
            },
        ]
    );
    let sent = m.monitor.named("find").last().unwrap().command.clone();
    assert_eq!(
        sent.get_document("projection").unwrap(),
        &doc! { "_id": 1, "displayName": 1 }
    );
    // The reply held only those fields.
    let reply = m
        .monitor
        .named("find")
        .last()
        .unwrap()
        .reply()
        .unwrap()
        .clone();
    let first = reply
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap()[0]
        .clone();
    assert_eq!(
        first,
        Bson::Document(doc! { "_id": 1, "displayName": "user 1" })
    );

    // A stored document lacking a field the projection requires.
    accounts
        .collection()
        .insert_one(doc! { "_id": 7, "status": "ACTIVE", "tags": [], "balance": 1 })
        .await
        .unwrap();
    let err = accounts
        .find(f.id().eq(7))
        .projection::<AccountName>()
        .await
        .unwrap_err();
    match &err {
        Error::Deserialize(e) => {
            assert_eq!((&e.id, e.path.as_str()), (&Bson::Int32(7), "displayName"));
        }
        other => panic!("expected a Deserialize error, got {other:?}"),
    }
    assert!(err.to_string().contains("displayName"), "{err}");
    m.finish().await;
}
