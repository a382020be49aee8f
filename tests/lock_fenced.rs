//! Fenced writes: a holder that paused past its lease's ttl cannot
//! overwrite the next holder's work; its late write changes nothing and
//! fails with `Error::Fenced`.

use crate::common;

use common::leases::{stale_and_next, LONG};
use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::options::IndexOptions;
use mongodb::IndexModel;
use odm::lock::Leases;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

/// A closed model: loading must not choke on the stored `__fence`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "reports")]
#[serde(deny_unknown_fields)]
struct Report {
    #[serde(rename = "_id")]
    id: i64,
    name: String,
    total: i64,
    state: String,
}

async fn stored(reports: &Model<Report>, id: i64) -> BsonDocument {
    reports
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .expect("stored")
}

fn fenced_token(result: odm::Result<impl std::fmt::Debug>) -> (i64, Option<i64>) {
    match result {
        Err(Error::Fenced(e)) => (e.token, e.stored),
        other => panic!("expected Error::Fenced, got {other:?}"),
    }
}

#[tokio::test]
async fn a_stale_holders_late_save_is_refused_while_the_new_holders_lands() {
    let t = TestDb::new().await;
    let leases = Leases::new(&t.db, "locks");
    let reports = Report::model(&t.db);
    let report = Report {
        id: 42,
        name: "q3".into(),
        total: 0,
        state: "open".into(),
    };
    reports.create(report).await.unwrap();

    let (stale, next) = stale_and_next(&leases, "report:42").await;
    let mut late = reports.find_by_id(42).await.unwrap().unwrap();
    let mut current = reports.find_by_id(42).await.unwrap().unwrap();
    current.total = 20;
    current.save().fenced(&next).await.unwrap();
    assert_eq!(
        stored(&reports, 42).await.get_i64("__fence").unwrap(),
        next.token()
    );

    late.total = 10;
    let refused = late.save().fenced(&stale).await;
    assert_eq!(fenced_token(refused), (stale.token(), Some(next.token())));
    // Nothing changed; the stale copy keeps its change pending.
    let raw = stored(&reports, 42).await;
    assert_eq!(raw.get_i64("total").unwrap(), 20);
    assert_eq!(raw.get_i64("__fence").unwrap(), next.token());
    assert_eq!(late.modified_paths(), ["total"]);
    assert!(matches!(stale.renew().await, Err(Error::LeaseLost(_))));

    // The new holder keeps writing; the fence never goes back.
    current.state = "closed".into();
    current.save().fenced(&next).await.unwrap();
    let reloaded = reports.find_by_id(42).await.unwrap().unwrap();
    assert_eq!(reloaded.total, 20);
    assert_eq!(reloaded.state, "closed");
    next.release().await.unwrap();
    let later = leases.acquire("report:42", LONG).await.unwrap();
    let mut doc = reports.find_by_id(42).await.unwrap().unwrap();
    doc.total = 30;
    doc.save().fenced(&later).await.unwrap();
    assert_eq!(
        stored(&reports, 42).await.get_i64("__fence").unwrap(),
        later.token()
    );
    t.finish().await;
}

#[tokio::test]
async fn the_fence_is_no_change_and_is_stored_on_insert() {
    let t = TestDb::new().await;
    let leases = Leases::new(&t.db, "locks");
    let reports = Report::model(&t.db);
    let lease = leases.acquire("report:7", LONG).await.unwrap();
    let mut new = reports.new_doc(Report {
        id: 7,
        name: "new".into(),
        total: 1,
        state: "open".into(),
    });
    new.save().fenced(&lease).await.unwrap();
    assert_eq!(
        stored(&reports, 7).await.get_i64("__fence").unwrap(),
        lease.token()
    );

    // Loaded (deny_unknown_fields) and touched without a change: nothing to write.
    let mut loaded = reports.find_by_id(7).await.unwrap().unwrap();
    loaded.total += 0;
    assert_eq!(loaded.changes(), None);
    assert!(loaded.modified_paths().is_empty());
    // A fenced save with no change still writes the fence (and only it).
    loaded.save().fenced(&lease).await.unwrap();
    loaded.name = "renamed".into();
    assert_eq!(
        loaded.changes(),
        Some((
            doc! { "_id": 7_i64 },
            doc! { "$set": { "name": "renamed" } }
        ))
    );
    loaded.save().await.unwrap();
    t.finish().await;
}

#[tokio::test]
async fn fenced_upserts_and_claims_refuse_a_stale_token() {
    let t = TestDb::new().await;
    let leases = Leases::new(&t.db, "locks");
    let reports = Report::model(&t.db);
    reports
        .collection()
        .create_index(
            IndexModel::builder()
                .keys(doc! { "name": 1 })
                .options(IndexOptions::builder().unique(true).build())
                .build(),
        )
        .await
        .unwrap();
    let (stale, next) = stale_and_next(&leases, "report:q4").await;

    let first = reports
        .upsert(doc! { "name": "q4" })
        .set(doc! { "total": 5_i64 })
        .set_on_insert(doc! { "_id": 4_i64, "state": "open" })
        .fenced(&next)
        .await
        .unwrap();
    assert_eq!(first.total, 5);
    let refused = reports
        .upsert(doc! { "name": "q4" })
        .set(doc! { "total": 1_i64 })
        .set_on_insert(doc! { "_id": 5_i64, "state": "open" })
        .fenced(&stale)
        .await;
    assert_eq!(fenced_token(refused), (stale.token(), Some(next.token())));
    assert_eq!(reports.count(doc! {}).await.unwrap(), 1);
    assert_eq!(stored(&reports, 4).await.get_i64("total").unwrap(), 5);

    // A claim: the stale holder is refused, not told "someone else got it".
    let refused = reports
        .claim(
            doc! { "name": "q4", "state": "open" },
            doc! { "$set": { "state": "closed" } },
        )
        .fenced(&stale)
        .await;
    assert_eq!(fenced_token(refused), (stale.token(), Some(next.token())));
    assert_eq!(stored(&reports, 4).await.get_str("state").unwrap(), "open");
    let claimed = reports
        .claim(
            doc! { "name": "q4", "state": "open" },
            doc! { "$set": { "state": "closed" } },
        )
        .fenced(&next)
        .await
        .unwrap()
        .expect("the current holder claims it");
    assert_eq!(claimed.state, "closed");
    // Nothing left to claim: None, not a refusal.
    let none = reports
        .claim(
            doc! { "name": "q4", "state": "open" },
            doc! { "$set": { "state": "closed" } },
        )
        .fenced(&next)
        .await
        .unwrap();
    assert!(none.is_none());
    t.finish().await;
}
