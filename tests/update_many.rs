//! `Model::update_many` / `Model::delete_many`: the exact command sent, the
//! stored documents, the version bump and its opt-out, timestamps, field
//! rules refused before sending, the shard key, sessions.

use crate::common;

use common::Monitored;
use mongodb::bson::{Bson, DateTime, Document as BsonDocument};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", timestamps, shard_key(tenant))]
struct Account {
    #[serde(rename = "_id")]
    id: ObjectId,
    tenant: String,
    #[odm(one_of("open", "expired", "closed"))]
    state: String,
    #[odm(min = 0)]
    visits: i64,
    #[odm(required)]
    owner: Option<String>,
    #[serde(rename = "createdAt")]
    created_at: Option<DateTime>,
    #[serde(rename = "updatedAt")]
    updated_at: Option<DateTime>,
}

fn account(state: &str) -> Account {
    Account {
        id: ObjectId::new(),
        tenant: "t1".into(),
        state: state.into(),
        visits: 1,
        owner: Some("ann".into()),
        created_at: None,
        updated_at: None,
    }
}

/// Three stored accounts: two open, one closed.
async fn seed(accounts: &Model<Account>) -> Vec<Doc<Account>> {
    let mut docs = Vec::new();
    for state in ["open", "open", "closed"] {
        docs.push(accounts.create(account(state)).await.unwrap());
    }
    docs
}

async fn raw(accounts: &Model<Account>, id: ObjectId) -> BsonDocument {
    common::stored(accounts, id).await
}

/// The one `update` statement of the last `update` command.
fn statement(m: &Monitored) -> BsonDocument {
    let sent = m.monitor.named("update");
    assert_eq!(sent.len(), 1, "one update command: {sent:?}");
    let updates = sent[0].command.get_array("updates").unwrap();
    assert_eq!(updates.len(), 1, "one statement");
    updates[0].as_document().unwrap().clone()
}

#[tokio::test]
async fn one_update_command_bumps_the_version_and_stamps_updated_at() {
    let m = Monitored::new("update-many").await;
    let accounts = Account::model(m.db());
    let docs = seed(&accounts).await;
    m.monitor.clear();

    let before = DateTime::now();
    let report = accounts
        .update_many(
            doc! { "state": "open" },
            doc! { "$set": { "state": "expired" } },
        )
        .await
        .unwrap();
    assert_eq!((report.matched(), report.modified()), (2, 2));
    assert_eq!((report.matched, report.modified), (2, 2));

    assert_eq!(m.monitor.writes(), ["update"], "one command, nothing else");
    let stmt = statement(&m);
    assert_eq!(stmt.get_document("q").unwrap(), &doc! { "state": "open" });
    assert!(stmt.get_bool("multi").unwrap());
    let u = stmt.get_document("u").unwrap();
    let stamped = *u
        .get_document("$set")
        .unwrap()
        .get_datetime("updatedAt")
        .unwrap();
    assert!(stamped >= before);
    assert_eq!(
        u,
        &doc! { "$set": { "state": "expired", "updatedAt": stamped }, "$inc": { "__v": 1 } }
    );

    for d in &docs[..2] {
        let stored = raw(&accounts, d.id).await;
        assert_eq!(stored.get_str("state").unwrap(), "expired");
        assert_eq!(stored.get_i32("__v").unwrap(), 1);
        assert_eq!(stored.get_datetime("updatedAt").unwrap(), &stamped);
        assert_eq!(
            stored.get_datetime("createdAt").unwrap(),
            &d.created_at.unwrap()
        );
    }
    let closed = raw(&accounts, docs[2].id).await;
    assert_eq!(closed.get_str("state").unwrap(), "closed");
    assert_eq!(closed.get_i32("__v").unwrap(), 0);
    m.finish().await;
}

#[tokio::test]
async fn keep_version_sends_no_bump_and_counts_only_changed_documents() {
    let m = Monitored::new("update-many-keep").await;
    let accounts = Account::model(m.db());
    let docs = seed(&accounts).await;
    m.monitor.clear();

    // An `$inc` of a counter no save writes back: safe without the bump.
    let report = accounts
        .update_many(doc! { "state": "open" }, doc! { "$inc": { "visits": 1 } })
        .keep_version()
        .await
        .unwrap();
    assert_eq!((report.matched(), report.modified()), (2, 2));
    let u = statement(&m).get_document("u").unwrap().clone();
    assert!(!u.get_document("$inc").unwrap().contains_key("__v"));
    assert!(u.get_document("$set").unwrap().contains_key("updatedAt"));
    for d in &docs[..2] {
        let stored = raw(&accounts, d.id).await;
        assert_eq!(stored.get_i64("visits").unwrap(), 2);
        assert_eq!(stored.get_i32("__v").unwrap(), 0, "version kept");
    }

    // Without a bump (and with the caller's own `updatedAt`), an update
    // that changes nothing modifies nothing: `modified` counts changed
    // documents only.
    let fixed = DateTime::from_millis(1_000);
    for modified in [2, 0] {
        let report = accounts
            .update_many(
                doc! { "state": "open" },
                doc! { "$set": { "updatedAt": fixed } },
            )
            .keep_version()
            .await
            .unwrap();
        assert_eq!((report.matched(), report.modified()), (2, modified));
    }
    m.finish().await;
}

#[tokio::test]
async fn field_rules_refuse_before_anything_is_sent() {
    let m = Monitored::new("update-many-rules").await;
    let accounts = Account::model(m.db());
    let docs = seed(&accounts).await;
    m.monitor.clear();

    let cases = [
        (
            doc! { "$set": { "state": "bogus" } },
            "validation failed: state: must be one of \"open\", \"expired\", \"closed\" (is ?)",
        ),
        (
            doc! { "$set": { "visits": -1_i64, "state": "closed" } },
            "validation failed: visits: must be at least 0 (is ?)",
        ),
        (
            doc! { "$unset": { "owner": "" } },
            "validation failed: owner: is required",
        ),
    ];
    for (update, message) in cases {
        let e = accounts
            .update_many(doc! {}, update.clone())
            .await
            .unwrap_err();
        assert!(matches!(e, Error::Validation(_)), "{e:?}");
        assert_eq!(e.to_string(), message, "{update}");
    }
    // A value of the wrong type does not fit the field.
    let e = accounts
        .update_many(doc! {}, doc! { "$set": { "visits": "many" } })
        .await
        .unwrap_err();
    let Error::Validation(errors) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(errors.paths(), ["visits"]);
    assert!(
        errors.errors()[0]
            .message()
            .starts_with("does not fit the field's type"),
        "{e}"
    );
    assert!(m.monitor.writes().is_empty(), "nothing was sent");
    for d in &docs {
        assert_eq!(raw(&accounts, d.id).await.get_i32("__v").unwrap(), 0);
    }

    // What cannot be checked is sent: an `$inc` result depends on the
    // stored value.
    let report = accounts
        .update_many(doc! {}, doc! { "$inc": { "visits": -5 } })
        .await
        .unwrap();
    assert_eq!(report.matched(), 3);
    assert_eq!(
        raw(&accounts, docs[0].id).await.get_i64("visits").unwrap(),
        -4
    );
    m.finish().await;
}

#[tokio::test]
async fn a_shard_key_write_is_refused_before_sending() {
    let m = Monitored::new("update-many-shard").await;
    let accounts = Account::model(m.db());
    seed(&accounts).await;
    m.monitor.clear();
    let e = accounts
        .update_many(
            doc! { "state": "open" },
            doc! { "$set": { "tenant": "t2" } },
        )
        .await
        .unwrap_err();
    let Error::ShardKey(k) = &e else {
        panic!("{e:?}")
    };
    assert_eq!((k.field.as_str(), k.path.as_str()), ("tenant", "tenant"));
    assert_eq!(k.id, Bson::Null);
    assert!(m.monitor.writes().is_empty());
    assert_eq!(accounts.count(doc! { "tenant": "t1" }).await.unwrap(), 3);
    m.finish().await;
}

#[tokio::test]
async fn delete_many_deletes_the_matching_documents_in_one_command() {
    let m = Monitored::new("delete-many").await;
    let accounts = Account::model(m.db());
    let mut docs = seed(&accounts).await;
    m.monitor.clear();

    let deleted = accounts
        .delete_many(doc! { "state": "open" })
        .await
        .unwrap();
    assert_eq!(deleted, 2);
    assert_eq!(m.monitor.writes(), ["delete"]);
    let sent = m.monitor.named("delete");
    let stmt = sent[0].command.get_array("deletes").unwrap()[0]
        .as_document()
        .unwrap()
        .clone();
    assert_eq!(stmt.get_document("q").unwrap(), &doc! { "state": "open" });
    assert!(
        matches!(stmt.get("limit"), Some(Bson::Int32(0) | Bson::Int64(0))),
        "every match is deleted: {stmt}"
    );
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 1);
    assert_eq!(
        accounts
            .delete_many(doc! { "state": "open" })
            .await
            .unwrap(),
        0
    );

    // A tracked copy of a deleted document: its scalar save finds nothing.
    docs[0].visits = 9;
    let e = docs[0].save().await.unwrap_err();
    assert!(matches!(e, Error::NotFound(_)), "{e:?}");
    m.finish().await;
}

#[tokio::test]
async fn both_run_inside_a_session_and_its_transaction() {
    let m = Monitored::new("many-session").await;
    let accounts = Account::model(m.db());
    let docs = seed(&accounts).await;

    let mut s = m.client().start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    let report = accounts
        .update_many(
            doc! { "state": "open" },
            doc! { "$set": { "state": "expired" } },
        )
        .session(&mut s)
        .await
        .unwrap();
    assert_eq!(report.matched(), 2);
    let deleted = accounts
        .delete_many(doc! { "state": "closed" })
        .session(&mut s)
        .await
        .unwrap();
    assert_eq!(deleted, 1);
    // Inside the transaction its own writes are visible.
    let inside = accounts
        .count(doc! { "state": "expired" })
        .session(&mut s)
        .await
        .unwrap();
    assert_eq!(inside, 2);
    s.abort_transaction().await.unwrap();
    drop(s);
    assert_eq!(accounts.count(doc! { "state": "open" }).await.unwrap(), 2);
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 3);
    for sent in m
        .monitor
        .named("update")
        .iter()
        .chain(&m.monitor.named("delete"))
    {
        assert!(sent.command.contains_key("lsid"), "sent in the session");
        assert!(
            sent.command.contains_key("txnNumber"),
            "inside the transaction"
        );
    }

    let mut s = m.client().start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    accounts
        .update_many(
            doc! { "state": "open" },
            doc! { "$set": { "state": "expired" } },
        )
        .session(&mut s)
        .await
        .unwrap();
    s.commit_transaction().await.unwrap();
    drop(s);
    let stored = raw(&accounts, docs[0].id).await;
    assert_eq!(stored.get_str("state").unwrap(), "expired");
    assert_eq!(stored.get_i32("__v").unwrap(), 1);
    m.finish().await;
}

/// A member under optimistic_concurrency, for typed paths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "members", optimistic_concurrency)]
struct Member {
    #[serde(rename = "_id")]
    id: i32,
    status: String,
    age: i32,
}

/// The filter and the update built from `Member::fields()` paths (their
/// values checked against the field types at compile time; `tests/ui`
/// holds the misuses) go out as the documents they stand for, with the
/// version bump, and change exactly the matched documents.
#[tokio::test]
async fn typed_filters_and_updates() {
    let m = Monitored::new("update-many-typed").await;
    let members = Member::model(m.db());
    for (id, status, age) in [
        (1, "ACTIVE", 17),
        (2, "ACTIVE", 30),
        (3, "BANNED", 40),
        (4, "ACTIVE", 18),
    ] {
        let status = status.to_string();
        members.create(Member { id, status, age }).await.unwrap();
    }
    let mut stale = members.find_by_id(2).await.unwrap().unwrap();
    m.monitor.clear();

    let f = Member::fields();
    let report = members
        .update_many(
            f.age().gte(18).and(f.status().eq("ACTIVE")),
            f.status().set("EXPIRED").and(f.age().inc(1)),
        )
        .await
        .unwrap();
    assert_eq!((report.matched(), report.modified()), (2, 2));
    let sent = m.monitor.named("update");
    assert_eq!(sent.len(), 1, "one update command");
    let stmt = sent[0].command.get_array("updates").unwrap()[0]
        .as_document()
        .unwrap()
        .clone();
    assert_eq!(
        stmt.get_document("q").unwrap(),
        &doc! { "age": { "$gte": 18 }, "status": "ACTIVE" }
    );
    assert_eq!(
        stmt.get_document("u").unwrap(),
        &doc! { "$set": { "status": "EXPIRED" }, "$inc": { "age": 1, "__v": 1 } }
    );

    let expected = [
        (1, "ACTIVE", 17, 0),
        (2, "EXPIRED", 31, 1),
        (3, "BANNED", 40, 0),
        (4, "EXPIRED", 19, 1),
    ];
    for (id, status, age, version) in expected {
        assert_eq!(
            common::stored(&members, id).await,
            doc! { "_id": id, "status": status, "age": age, "__v": version },
            "member {id}"
        );
    }
    // A copy loaded before the update fails its versioned save.
    stale.age = 50;
    assert!(matches!(stale.save().await, Err(Error::Version(_))));
    assert_eq!(
        common::stored(&members, 2).await.get_i32("age").unwrap(),
        31
    );

    // A raw document still goes as given.
    let report = members
        .update_many(f.id().eq(1), doc! { "$set": { "status": "NEW" } })
        .await
        .unwrap();
    assert_eq!(report.matched(), 1);
    assert_eq!(
        common::stored(&members, 1).await,
        doc! { "_id": 1, "status": "NEW", "age": 17, "__v": 1 }
    );
    m.finish().await;
}
