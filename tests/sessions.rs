//! Every operation of `Model` runs inside a session when given one, so a
//! transaction can read its own writes and roll them back.

use crate::common;

use common::*;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[tokio::test]
async fn reads_and_creates_take_a_session() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    // The collection exists before the transaction starts.
    users.create(user()).await.unwrap();
    let mut s = t.client.start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    let mut inside = user();
    inside.email = "inside@x.y".into();
    let created = users.create(inside.clone()).session(&mut s).await.unwrap();
    assert_eq!(created.version(), Some(0));
    let found = users.find_by_id(inside.id).session(&mut s).await.unwrap();
    assert_eq!(
        found.map(|d| d.email.clone()),
        Some("inside@x.y".to_string())
    );
    let one = users
        .find_one(doc! { "email": "inside@x.y" })
        .session(&mut s)
        .await
        .unwrap();
    assert!(one.is_some());
    assert_eq!(users.count(doc! {}).session(&mut s).await.unwrap(), 2);
    let all = users
        .find(doc! {})
        .sort(doc! { "email": 1 })
        .limit(5)
        .session(&mut s)
        .await
        .unwrap();
    let emails: Vec<_> = all.iter().map(|d| d.email.clone()).collect();
    assert_eq!(emails, ["a@b.c", "inside@x.y"]);
    s.abort_transaction().await.unwrap();
    drop(s);
    // Rolled back: only the document created outside is stored.
    assert_eq!(users.count(doc! {}).await.unwrap(), 1);
    assert!(users.find_by_id(inside.id).await.unwrap().is_none());
    t.finish().await;
}

#[tokio::test]
async fn find_sorts_skips_and_limits() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    for i in 0..5 {
        let mut u = user();
        u.email = format!("u{i}@x.y");
        users.create(u).await.unwrap();
    }
    let page = users
        .find(doc! {})
        .sort(doc! { "email": -1 })
        .skip(1)
        .limit(2)
        .await
        .unwrap();
    let emails: Vec<_> = page.iter().map(|d| d.email.clone()).collect();
    assert_eq!(emails, ["u3@x.y", "u2@x.y"]);
    let first = users
        .find_one(doc! {})
        .sort(doc! { "email": 1 })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.email, "u0@x.y");
    t.finish().await;
}

/// `reload` and `delete` join a transaction: a reload inside it reads the
/// transaction's own writes, and an aborted delete leaves the document.
#[tokio::test]
async fn reload_and_delete_take_a_session() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let mut outside = users.create(user()).await.unwrap();
    let mut s = t.client.start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    let mut inside = users
        .find_by_id(outside.id)
        .session(&mut s)
        .await
        .unwrap()
        .unwrap();
    inside.status = "INSIDE".into();
    inside.save().session(&mut s).await.unwrap();
    // Outside the transaction the write is not visible yet; inside it is.
    outside.reload().await.unwrap();
    assert_eq!(outside.status, "NEW");
    outside.reload().session(&mut s).await.unwrap();
    assert_eq!(
        (outside.status.as_str(), outside.version()),
        ("INSIDE", Some(1))
    );
    outside.delete().session(&mut s).await.unwrap();
    assert_eq!(users.count(doc! {}).session(&mut s).await.unwrap(), 0);
    s.abort_transaction().await.unwrap();
    // Rolled back: the document is there, unchanged.
    let kept = stored(&users, outside.id).await;
    assert_eq!(
        (
            kept.get_str("status").unwrap(),
            kept.get_i32("__v").unwrap()
        ),
        ("NEW", 0)
    );
    drop(s);
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "tickets")]
struct Ticket {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(unique)]
    code: String,
}

/// `sync_indexes` joins a transaction: on a collection the transaction
/// creates, the index exists once it commits (MongoDB >= 4.4).
#[tokio::test]
async fn sync_indexes_takes_a_session() {
    let t = TestDb::new().await;
    let tickets = Ticket::model(&t.db);
    let mut s = t.client.start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    let report = tickets.sync_indexes().session(&mut s).await.unwrap();
    assert_eq!(report.created, ["code_1"]);
    tickets
        .create(Ticket {
            id: ObjectId::new(),
            code: "A".into(),
        })
        .session(&mut s)
        .await
        .unwrap();
    s.commit_transaction().await.unwrap();
    drop(s);
    let again = tickets.sync_indexes().await.unwrap();
    assert_eq!(
        (again.created.len(), again.existing.as_slice()),
        (0, &["code_1".to_string()][..])
    );
    let e = tickets
        .create(Ticket {
            id: ObjectId::new(),
            code: "A".into(),
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&e, Error::DuplicateKey(d) if d.index.as_deref() == Some("code_1")),
        "{e:?}"
    );
    t.finish().await;
}
