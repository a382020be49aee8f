//! Schema versions through a rolling deploy (issue 31): an instance whose
//! model is older than a stored document reads it where it deserializes
//! and never writes it (saves and batches refused before sending, upserts,
//! claims and `update_many` leaving it untouched); the atomic writes of a
//! newer model upgrade an older document before writing it; `update_many`
//! changes only documents at the model's version; every insert stores it.

use crate::common;
use crate::schema_support;

use common::Monitored;
use odm::bson::{doc, Bson};
use odm::prelude::*;
use schema_support::{stored_at, Name, User, UserV1};

async fn with(
    label: &str,
    versions: &[u32],
) -> (Monitored, Model<User>, Model<UserV1>, Vec<ObjectId>) {
    let m = Monitored::new(label).await;
    let users = User::model(m.db());
    let old = UserV1::model(m.db());
    let mut ids = Vec::new();
    for (n, version) in versions.iter().enumerate() {
        let id = ObjectId::new();
        users
            .collection()
            .insert_one(stored_at(*version, id, n as i64))
            .await
            .unwrap();
        ids.push(id);
    }
    m.monitor.clear();
    (m, users, old, ids)
}

fn refused(e: &Error, id: ObjectId) {
    let Error::Schema(e) = e else {
        panic!("not a schema refusal: {e:?}")
    };
    assert_eq!((e.stored(), e.model(), e.id()), (2, 1, &Bson::ObjectId(id)));
}

#[tokio::test]
async fn an_older_model_reads_a_newer_document_but_never_writes_it() {
    let (m, users, old, ids) = with("rolling-old-reads", &[2]).await;
    let id = ids[0];
    let before = common::stored(&users, id).await;
    let mut copy = old.find_by_id(id).await.unwrap().expect("readable");
    assert_eq!((copy.email.as_str(), copy.visits), ("u0@x.io", 0));
    assert_eq!(
        (copy.schema_version(), copy.migrated_from()),
        (Some(2), None)
    );
    copy.visits = 9;
    m.monitor.clear();
    let e = copy.save().await.unwrap_err();
    refused(&e, id);
    assert_eq!(
        e.to_string(),
        format!(
            "document \"{}\" of collection \"users\" is stored at schema version 2, above this \
             model's 1: an older model never writes a newer document; nothing was written",
            id.to_hex()
        )
    );
    // Even a save with nothing else to write, and a batch.
    copy.visits = 0;
    copy.increment();
    refused(&copy.save().await.unwrap_err(), id);
    let mut batch = vec![copy];
    batch[0].visits = 3;
    let outcomes = old.bulk_save(&mut batch).await.unwrap();
    refused(outcomes[0].as_ref().unwrap_err(), id);
    assert!(m.monitor.writes().is_empty(), "{:?}", m.monitor.writes());
    assert_eq!(common::stored(&users, id).await, before);
    m.finish().await;
}

#[tokio::test]
async fn an_older_copy_of_a_document_upgraded_meanwhile_is_refused() {
    let (m, users, old, ids) = with("rolling-upgraded-meanwhile", &[1]).await;
    let id = ids[0];
    let mut stale = old.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(stale.migrated_from(), None);
    let mut newer = users.find_by_id(id).await.unwrap().unwrap();
    newer.save().await.unwrap();
    let upgraded = common::stored(&users, id).await;
    // A scalar change checks no version: the schema term alone refuses it.
    stale.visits = 42;
    assert_eq!(stale.changes().unwrap().0, doc! { "_id": id, "__sv": 1 });
    refused(&stale.save().await.unwrap_err(), id);
    assert_eq!(common::stored(&users, id).await, upgraded);
    m.finish().await;
}

#[tokio::test]
async fn older_upserts_claims_and_set_writes_leave_a_newer_document_as_it_is() {
    let (m, users, old, ids) = with("rolling-old-writes", &[2]).await;
    let id = ids[0];
    let before = common::stored(&users, id).await;
    let e = old
        .upsert(doc! { "_id": id })
        .set(doc! { "visits": 99_i64 })
        .await
        .unwrap_err();
    refused(&e, id);
    let e = old
        .claim(doc! { "_id": id }, doc! { "$set": { "visits": 99_i64 } })
        .await
        .unwrap_err();
    refused(&e, id);
    let report = old
        .update_many(doc! {}, doc! { "$set": { "visits": 99_i64 } })
        .await
        .unwrap();
    assert_eq!((report.matched(), report.modified()), (0, 0));
    assert_eq!(common::stored(&users, id).await, before);
    m.finish().await;
}

#[tokio::test]
async fn upserts_and_claims_upgrade_an_older_document_before_writing_it() {
    let (m, users, _, ids) = with("rolling-atomic-upgrade", &[0, 1]).await;
    let up = users
        .upsert(doc! { "_id": ids[0] })
        .set(doc! { "visits": 7_i64 })
        .await
        .unwrap();
    assert_eq!((up.visits, up.email.as_str()), (7, "u0@x.io"));
    assert_eq!((up.migrated_from(), up.schema_version()), (None, Some(2)));
    let stored = common::stored(&users, ids[0]).await;
    assert_eq!(stored.get("__sv"), Some(&Bson::Int32(2)));
    assert!(!stored.contains_key("mail"));
    // The upgrade's save (version 0 -> 1), then the upsert's bump.
    assert_eq!(stored.get("__v"), Some(&Bson::Int32(2)));

    let claimed = users
        .claim(doc! { "_id": ids[1] }, doc! { "$inc": { "visits": 1_i64 } })
        .await
        .unwrap()
        .expect("claimed after its upgrade");
    assert_eq!(
        (claimed.visits, claimed.name.clone()),
        (
            2,
            Name {
                first: "First1".into(),
                last: "Last1".into()
            }
        )
    );
    let stored = common::stored(&users, ids[1]).await;
    assert_eq!(stored.get("__sv"), Some(&Bson::Int32(2)));
    assert!(!stored.contains_key("full_name"));
    // Nothing to claim: still `None`.
    let none = users
        .claim(
            doc! { "email": "nobody" },
            doc! { "$inc": { "visits": 1_i64 } },
        )
        .await
        .unwrap();
    assert!(none.is_none());
    m.finish().await;
}

#[tokio::test]
async fn update_many_changes_only_documents_at_the_models_version() {
    let (m, users, _, ids) = with("rolling-update-many", &[0, 1, 2]).await;
    m.monitor.clear();
    let report = users
        .update_many(doc! {}, doc! { "$set": { "visits": 50_i64 } })
        .await
        .unwrap();
    assert_eq!(report.matched(), 1);
    let sent = &m.monitor.named("update")[0].command;
    let q = sent.get_array("updates").unwrap()[0]
        .as_document()
        .unwrap()
        .get_document("q")
        .unwrap()
        .clone();
    assert_eq!(q, doc! { "__sv": 2 });
    for (i, id) in ids.iter().enumerate() {
        let stored = common::stored(&users, *id).await;
        let visits = if i == 2 {
            Bson::Int64(50)
        } else {
            Bson::Int64(i as i64)
        };
        assert_eq!(stored.get("visits"), Some(&visits), "document {i}");
        // No version stamped on a document the update did not upgrade.
        assert_eq!(stored.get("__sv").is_some(), i > 0);
    }
    // Upgraded first, every document changes.
    let report = users.migrate_all().await.unwrap();
    assert_eq!((report.upgraded(), report.current()), (2, 1));
    let report = users
        .update_many(doc! {}, doc! { "$set": { "visits": 51_i64 } })
        .await
        .unwrap();
    assert_eq!(report.matched(), 3);
    m.finish().await;
}

#[tokio::test]
async fn the_schema_key_is_never_written_by_the_caller() {
    let (m, users, _, ids) = with("rolling-key-refused", &[2]).await;
    for result in [
        users
            .update_many(doc! {}, doc! { "$set": { "__sv": 5 } })
            .await
            .map(drop),
        users
            .claim(doc! { "_id": ids[0] }, doc! { "$set": { "__sv": 5 } })
            .await
            .map(drop),
        users
            .upsert(doc! { "_id": ids[0] })
            .set(doc! { "__sv": 5 })
            .await
            .map(drop),
    ] {
        let Err(Error::Validation(e)) = result else {
            panic!("accepted: {result:?}")
        };
        assert_eq!(e.errors()[0].path(), "__sv");
    }
    assert!(m.monitor.writes().is_empty());
    m.finish().await;
}

#[tokio::test]
async fn every_insert_stores_the_models_schema_version() {
    let (m, users, _, _) = with("rolling-inserts", &[]).await;
    let user = |n: i64| User {
        id: ObjectId::new(),
        email: format!("n{n}@x.io"),
        name: Name {
            first: "A".into(),
            last: "B".into(),
        },
        visits: n,
    };
    let created = users.create(user(1)).await.unwrap();
    let mut new = users.new_doc(user(2));
    new.save().await.unwrap();
    let many: Vec<ObjectId> = users
        .insert_many([user(3), user(4)])
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.unwrap().id)
        .collect();
    let upserted = ObjectId::new();
    let inserted = users
        .upsert(doc! { "_id": upserted })
        .set_on_insert(doc! {
            "email": "u@x.io", "name": { "first": "U", "last": "P" }, "visits": 0_i64,
        })
        .await
        .unwrap();
    assert_eq!(inserted.schema_version(), Some(2));
    for id in [created.id, new.id, many[0], many[1], upserted] {
        let stored = common::stored(&users, id).await;
        assert_eq!(stored.get("__sv"), Some(&Bson::Int32(2)), "{stored}");
        assert_eq!(stored.get("__v"), Some(&Bson::Int32(0)), "{stored}");
    }
    m.finish().await;
}
