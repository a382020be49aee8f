//! `Model::with_collection` (one model type, a collection chosen at run
//! time: a collection per tenant) and `Model::with_options` (the
//! collection's write concern, read concern and read preference): every
//! operation goes to that collection with those options, shown by the
//! stored documents, the errors and the commands sent.

use crate::common;

use common::Monitored;
use mongodb::bson::{doc, Bson};
use mongodb::options::{
    Acknowledgment, CollectionOptions, ReadConcern, ReadPreference, SelectionCriteria, WriteConcern,
};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", optimistic_concurrency)]
struct Account {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(unique)]
    email: String,
    plan: String,
}

fn account(id: i64, email: &str) -> Account {
    Account {
        id,
        email: email.into(),
        plan: "free".into(),
    }
}

#[tokio::test]
async fn a_tenant_model_reads_and_writes_only_its_collection() {
    let m = Monitored::new("tenant-crud").await;
    let tenant = Model::<Account>::with_collection(m.db(), "tenant_42_accounts");
    let shared = Account::model(m.db());
    assert_eq!(tenant.name(), "tenant_42_accounts");
    assert_eq!(tenant.indexes(), shared.indexes());

    m.monitor.clear();
    let mut created = tenant.create(account(1, "a@x.io")).await.unwrap();
    created.plan = "pro".into();
    created.save().await.unwrap();
    let mut found = tenant
        .find_by_id(1)
        .await
        .unwrap()
        .expect("in the tenant collection");
    assert_eq!((found.plan.as_str(), found.version()), ("pro", Some(1)));
    assert_eq!(tenant.count(doc! {}).await.unwrap(), 1);
    assert_eq!(shared.count(doc! {}).await.unwrap(), 0);
    assert!(shared.find_by_id(1).await.unwrap().is_none());
    // Every command of the tenant model named its collection.
    for sent in m
        .monitor
        .all()
        .iter()
        .filter(|s| s.name != "count" && s.name != "aggregate")
    {
        let coll = sent.command.get_str(&sent.name).unwrap_or_default();
        assert!(
            coll == "tenant_42_accounts" || coll == "accounts",
            "{}: {}",
            sent.name,
            sent.command
        );
    }
    let tenant_writes: Vec<String> = m
        .monitor
        .all()
        .iter()
        .filter(|s| ["insert", "update"].contains(&s.name.as_str()))
        .map(|s| s.command.get_str(&s.name).unwrap().to_string())
        .collect();
    assert_eq!(tenant_writes, ["tenant_42_accounts", "tenant_42_accounts"]);

    found.reload().await.unwrap();
    found.delete().await.unwrap();
    assert_eq!(tenant.count(doc! {}).await.unwrap(), 0);
    // A reload of the deleted document names the tenant collection.
    let err = created.reload().await.unwrap_err();
    let Error::NotFound(e) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(e.collection, "tenant_42_accounts");
    m.finish().await;
}

#[tokio::test]
async fn indexes_sync_on_the_tenant_collection_and_guard_it() {
    let m = Monitored::new("tenant-index").await;
    let tenant = Model::<Account>::with_collection(m.db(), "tenant_7_accounts");
    let shared = Account::model(m.db());
    let report = tenant.sync_indexes().await.unwrap();
    assert_eq!(report.created, ["email_1"]);
    let on_tenant: Vec<String> = tenant.collection().list_index_names().await.unwrap();
    assert_eq!(on_tenant, ["_id_", "email_1"]);

    tenant.create(account(1, "same@x.io")).await.unwrap();
    let err = tenant.create(account(2, "same@x.io")).await.unwrap_err();
    let Error::DuplicateKey(e) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(e.index.as_deref(), Some("email_1"));
    // The shared collection has no such index: the same email is fine there twice.
    shared.create(account(1, "same@x.io")).await.unwrap();
    shared.create(account(2, "same@x.io")).await.unwrap();
    // Synced again, nothing is created.
    let again = tenant.sync_indexes().await.unwrap();
    assert_eq!((again.created.len(), again.existing.len()), (0, 1));
    m.finish().await;
}

#[tokio::test]
async fn collection_options_go_with_every_command_of_the_model() {
    let m = Monitored::new("model-options").await;
    let options = CollectionOptions::builder()
        .write_concern(
            WriteConcern::builder()
                .w(Acknowledgment::Majority)
                .journal(true)
                .build(),
        )
        .read_concern(ReadConcern::majority())
        .selection_criteria(SelectionCriteria::ReadPreference(ReadPreference::Primary))
        .build();
    let accounts = Model::<Account>::with_options(m.db(), options.clone());
    assert_eq!(accounts.name(), "accounts");
    assert_eq!(
        accounts.collection().selection_criteria(),
        Some(&SelectionCriteria::ReadPreference(ReadPreference::Primary))
    );

    m.monitor.clear();
    let mut doc = accounts.create(account(1, "a@x.io")).await.unwrap();
    doc.plan = "pro".into();
    doc.save().await.unwrap();
    let mut found = accounts.find_by_id(1).await.unwrap().unwrap();
    assert_eq!(found.plan, "pro");
    found.delete().await.unwrap();

    let majority = Bson::Document(doc! { "w": "majority", "j": true });
    for name in ["insert", "update", "delete"] {
        let sent = m.monitor.named(name);
        assert_eq!(sent.len(), 1, "{name}");
        assert_eq!(
            sent[0].command.get("writeConcern"),
            Some(&majority),
            "{name}"
        );
    }
    let find = &m.monitor.named("find")[0].command;
    assert_eq!(
        find.get_document("readConcern").unwrap(),
        &doc! { "level": "majority" }
    );

    // with_collection_options: both.
    let both = Model::<Account>::with_collection_options(m.db(), "tenant_1_accounts", options);
    m.monitor.clear();
    both.create(account(5, "b@x.io")).await.unwrap();
    let insert = &m.monitor.named("insert")[0].command;
    assert_eq!(insert.get_str("insert").unwrap(), "tenant_1_accounts");
    assert_eq!(insert.get("writeConcern"), Some(&majority));
    m.finish().await;
}
