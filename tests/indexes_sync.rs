//! `Model::sync_indexes` against the server: creates what is declared,
//! is idempotent, reports conflicts and refusals without dropping anything,
//! and lists the indexes it does not own.

use futures_util::TryStreamExt;
use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::IndexModel;
use odm::index::{IndexError, IndexErrorKind};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "accounts",
    index(keys(org = 1, role = -1), name = "org_roles"),
    index(keys(org = 1, created = -1), unique, partial(active = true))
)]
struct Account {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(unique)]
    email: String,
    #[odm(index)]
    created: i64,
    org: String,
    role: String,
    #[serde(rename = "handleName")]
    #[odm(unique, partial(age(gte = 18), kind(type = "string"), active = true))]
    handle: String,
    age: i32,
    kind: String,
    active: bool,
}

fn account(id: i64, handle: &str, age: i32, active: bool) -> Account {
    Account {
        id,
        email: format!("{id}@example.com"),
        created: id,
        org: "o".into(),
        role: format!("r{id}"),
        handle: handle.into(),
        age,
        kind: "person".into(),
        active,
    }
}

/// `listIndexes` as the server answers it, sorted by name, without `v`.
async fn indexes(db: &mongodb::Database) -> Vec<BsonDocument> {
    let mut list: Vec<BsonDocument> = db
        .run_cursor_command(doc! { "listIndexes": "accounts" })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    for index in &mut list {
        index.remove("v");
    }
    list.sort_by_key(|d| d.get_str("name").unwrap().to_string());
    list
}

async fn index_names(collection: &mongodb::Collection<BsonDocument>) -> Vec<String> {
    let mut names = collection.list_index_names().await.unwrap();
    names.sort();
    names
}

fn index_error(result: odm::Result<odm::SyncReport>) -> IndexError {
    match result {
        Err(Error::Index(e)) => *e,
        other => panic!("expected Error::Index, got {other:?}"),
    }
}

fn conflict_differences(e: &IndexError) -> &[String] {
    match &e.kind {
        IndexErrorKind::Conflict { differences, .. } => differences,
        other => panic!("expected a conflict, got {other:?}"),
    }
}

const DECLARED: [&str; 5] = [
    "email_1",
    "created_1",
    "handleName_1",
    "org_roles",
    "org_1_created_-1",
];

#[tokio::test]
async fn sync_creates_the_declared_indexes_once() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let first = accounts.sync_indexes().await.unwrap();
    assert_eq!(first.created, DECLARED);
    assert!(first.existing.is_empty() && first.extra.is_empty());

    let raw = accounts.collection();
    let mut expected = vec!["_id_".to_string()];
    expected.extend(DECLARED.iter().map(|s| s.to_string()));
    expected.sort();
    assert_eq!(index_names(raw).await, expected);
    let before = indexes(&t.db).await;
    let stored: Vec<&BsonDocument> = before
        .iter()
        .filter(|d| d.get_str("name").unwrap() != "_id_")
        .collect();
    assert_eq!(
        stored,
        [
            &doc! { "key": { "created": 1 }, "name": "created_1" },
            &doc! { "key": { "email": 1 }, "name": "email_1", "unique": true },
            &doc! {
                "key": { "handleName": 1 }, "name": "handleName_1", "unique": true,
                "partialFilterExpression": { "$and": [
                    { "age": { "$gte": 18 } },
                    { "kind": { "$type": "string" } },
                    { "active": true },
                ] },
            },
            &doc! {
                "key": { "org": 1, "created": -1 }, "name": "org_1_created_-1", "unique": true,
                "partialFilterExpression": { "active": true },
            },
            &doc! { "key": { "org": 1, "role": -1 }, "name": "org_roles" },
        ]
    );

    let second = accounts.sync_indexes().await.unwrap();
    assert!(second.created.is_empty(), "{second:?}");
    assert_eq!(second.existing, DECLARED);
    assert!(second.extra.is_empty());
    assert_eq!(indexes(&t.db).await, before);
    t.finish().await;
}

#[tokio::test]
async fn a_partial_filter_with_several_conditions_applies_only_where_all_hold() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    accounts.sync_indexes().await.unwrap();
    // Under 18, or inactive: outside the index, any number of each handle.
    accounts.create(account(1, "kid", 12, true)).await.unwrap();
    accounts.create(account(2, "kid", 13, true)).await.unwrap();
    accounts.create(account(3, "old", 40, false)).await.unwrap();
    accounts.create(account(4, "old", 41, false)).await.unwrap();
    // Adult and active: unique.
    accounts.create(account(5, "old", 42, true)).await.unwrap();
    match accounts.create(account(6, "old", 43, true)).await {
        Err(Error::DuplicateKey(e)) => assert_eq!(e.index.as_deref(), Some("handleName_1")),
        other => panic!("expected a duplicate key, got {other:?}"),
    }
    // A birthday brings a kid under the index: a kid's second account collides now.
    let mut kid = accounts.find_by_id(2_i64).await.unwrap().unwrap();
    kid.age = 18;
    kid.save().await.unwrap();
    let mut other = accounts.find_by_id(1_i64).await.unwrap().unwrap();
    other.age = 18;
    match other.save().await {
        Err(Error::DuplicateKey(e)) => assert_eq!(e.index.as_deref(), Some("handleName_1")),
        other => panic!("expected a duplicate key, got {other:?}"),
    }
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 5);
    t.finish().await;
}

#[tokio::test]
async fn indexes_the_model_does_not_declare_are_listed_and_kept() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let raw = accounts.collection();
    raw.create_index(IndexModel::builder().keys(doc! { "legacy": 1 }).build())
        .await
        .unwrap();
    let report = accounts.sync_indexes().await.unwrap();
    assert_eq!(report.extra, ["legacy_1"]);
    assert_eq!(report.created, DECLARED);
    assert!(index_names(raw).await.contains(&"legacy_1".to_string()));
    let again = accounts.sync_indexes().await.unwrap();
    assert_eq!(again.extra, ["legacy_1"]);
    assert!(again.created.is_empty());
    t.finish().await;
}

#[tokio::test]
async fn an_index_with_the_declared_name_and_other_options_is_reported_and_kept() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let raw = accounts.collection();
    // email_1 exists, but not unique.
    raw.create_index(IndexModel::builder().keys(doc! { "email": 1 }).build())
        .await
        .unwrap();

    let e = index_error(accounts.sync_indexes().await);
    assert_eq!(e.index, "email_1");
    assert_eq!(e.collection, "accounts");
    assert_eq!(
        conflict_differences(&e),
        ["unique: declared true, existing false"]
    );
    let text = e.to_string();
    assert!(
        text.starts_with(
            "index \"email_1\" on collection \"accounts\" conflicts with an existing index \
             (unique: declared true, existing false)"
        ),
        "{text}"
    );
    // Nothing was dropped, nothing created.
    assert_eq!(index_names(raw).await, ["_id_", "email_1"]);
    let listed = indexes(&t.db).await;
    assert_eq!(listed[1], doc! { "key": { "email": 1 }, "name": "email_1" });

    // Declared name, other keys / partial filter: each difference is named.
    raw.drop_index("email_1").await.unwrap();
    raw.create_index(
        IndexModel::builder()
            .keys(doc! { "org": -1 })
            .options(
                mongodb::options::IndexOptions::builder()
                    .name("org_roles".to_string())
                    .partial_filter_expression(doc! { "active": true })
                    .build(),
            )
            .build(),
    )
    .await
    .unwrap();
    let e = index_error(accounts.sync_indexes().await);
    assert_eq!(e.index, "org_roles");
    assert_eq!(
        conflict_differences(&e),
        [
            "keys: declared { \"org\": 1, \"role\": -1 }, existing { \"org\": -1 }",
            "partialFilterExpression: declared none, existing { \"active\": true }",
        ]
    );
    assert_eq!(index_names(raw).await, ["_id_", "org_roles"]);
    t.finish().await;
}

#[tokio::test]
async fn the_declared_index_under_another_name_is_reported() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let raw = accounts.collection();
    raw.create_index(
        IndexModel::builder()
            .keys(doc! { "email": 1 })
            .options(
                mongodb::options::IndexOptions::builder()
                    .name("email_unique".to_string())
                    .unique(true)
                    .build(),
            )
            .build(),
    )
    .await
    .unwrap();
    let e = index_error(accounts.sync_indexes().await);
    assert_eq!(e.index, "email_1");
    assert_eq!(
        conflict_differences(&e),
        ["name: declared \"email_1\", existing \"email_unique\""]
    );
    assert_eq!(index_names(raw).await, ["_id_", "email_unique"]);
    t.finish().await;
}

#[tokio::test]
async fn a_refusal_by_the_server_names_the_index_and_keeps_its_message() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    // Two stored documents with one email: the unique index cannot be built.
    let raw = accounts.collection();
    raw.insert_many([
        doc! { "_id": 1, "email": "same@example.com" },
        doc! { "_id": 2, "email": "same@example.com" },
    ])
    .await
    .unwrap();
    let e = index_error(accounts.sync_indexes().await);
    assert_eq!(e.index, "email_1");
    assert_eq!(
        e.declared,
        doc! { "key": { "email": 1 }, "name": "email_1", "unique": true }
    );
    match &e.kind {
        IndexErrorKind::Refused { code, message } => {
            assert_eq!(*code, 11000);
            assert!(message.contains("E11000"), "{message}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(e.to_string().starts_with(
        "the server refused to create index \"email_1\" { \"key\": { \"email\": 1 }, \"name\": \"email_1\", \"unique\": true } on collection \"accounts\" (code 11000): "
    ), "{e}");
    t.finish().await;
}
