//! Nothing is sent when validation fails; the raw collection is not
//! validated.

use mongodb::bson::{doc, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;

use crate::validation::common::Monitored;
use crate::validation::{failures, pairs, valid, Account, Comment};

fn stored_raw(doc: Option<BsonDocument>) -> BsonDocument {
    doc.expect("stored")
}

pub async fn nothing_is_sent_when_validation_fails() {
    let m = Monitored::new("validation").await;
    let accounts = Account::model(m.db());
    let sent = || m.monitor.writes();

    // create: an invalid value is not inserted.
    let mut bad = valid(1);
    bad.age = 3;
    let err = accounts.create(bad).await.map(|_| ());
    assert_eq!(
        failures(err),
        pairs(&[("age", "must be at least 18 (is 3)")])
    );
    let mut new = accounts.new_doc(valid(1));
    new.tags = vec!["t".into(); 9];
    assert_eq!(failures(new.save().await).len(), 1);
    assert!(sent().is_empty(), "{:?}", sent());
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 0);

    // A valid insert is seen by the monitor.
    let mut doc = accounts.create(valid(1)).await.unwrap();
    assert_eq!(sent(), ["insert"]);
    let before = stored_raw(
        accounts
            .collection()
            .find_one(doc! {"_id": 1})
            .await
            .unwrap(),
    );

    // update: an invalid change (scalar, array push, nested) sends nothing.
    doc.age = 200;
    doc.tags.push("b".into());
    doc.comments.push(Comment::new(""));
    assert_eq!(failures(doc.save().await).len(), 2);
    doc.increment();
    assert_eq!(failures(doc.save().await).len(), 2);
    assert_eq!(sent(), ["insert"]);
    let after = stored_raw(
        accounts
            .collection()
            .find_one(doc! {"_id": 1})
            .await
            .unwrap(),
    );
    assert_eq!(after, before);
    assert_eq!(doc.version(), Some(0));

    // Fixed, the pending changes go out as one update.
    doc.age = 40;
    doc.comments.last_mut().unwrap().text = "now valid".into();
    doc.save().await.unwrap();
    assert_eq!(sent(), ["insert", "update"]);
    assert_eq!(doc.version(), Some(1));
    m.finish().await;
}

pub async fn raw_collection_access_is_not_validated() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let mut bad = crate::validation::common::bson::to_document(&valid(5)).unwrap();
    bad.insert("age", 2);
    bad.insert("__v", 0);
    accounts.collection().insert_one(bad).await.unwrap();
    accounts
        .collection()
        .update_one(doc! {"_id": 5}, doc! {"$set": {"status": "??"}})
        .await
        .unwrap();

    // Loading does not validate; the next save through odm does, whole-document.
    let mut doc = accounts.find_by_id(5).await.unwrap().unwrap();
    assert_eq!(doc.age, 2);
    doc.ratio = 1.0;
    assert_eq!(failures(doc.save().await).len(), 2);
    doc.age = 20;
    doc.status = "PENDING".into();
    doc.save().await.unwrap();
    let stored = accounts.find_by_id(5).await.unwrap().unwrap();
    assert_eq!(
        (stored.age, stored.ratio, stored.status.as_str()),
        (20, 1.0, "PENDING")
    );
    t.finish().await;
}
