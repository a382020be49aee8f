//! Every lease operation and fenced write states its write concern
//! (`majority`) and read preference (`primary`) itself, whatever the
//! client's defaults (issue 21): what is sent is read back from a command
//! monitor.

use crate::common;

use std::time::Duration;

use common::monitor::Sent;
use common::Monitored;
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use mongodb::options::{Acknowledgment, ReadPreference, SelectionCriteria, WriteConcern};
use odm::lock::Leases;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "concern_reports")]
struct Report {
    #[serde(rename = "_id")]
    id: i64,
    total: i64,
}

/// A client whose own defaults are the opposite: `w: 1` and secondaries
/// preferred.
async fn monitored() -> Monitored {
    Monitored::with("lock-concern", |o| {
        o.write_concern = Some(WriteConcern::builder().w(Acknowledgment::Nodes(1)).build());
        o.selection_criteria = Some(SelectionCriteria::ReadPreference(
            ReadPreference::SecondaryPreferred {
                options: Default::default(),
            },
        ));
    })
    .await
}

fn write_concern(sent: &Sent) -> Option<&BsonDocument> {
    sent.command.get_document("writeConcern").ok()
}

fn is_majority(sent: &Sent) -> bool {
    write_concern(sent).and_then(|w| w.get("w")) == Some(&Bson::String("majority".into()))
}

#[tokio::test]
async fn lease_operations_and_fenced_writes_are_sent_with_majority() {
    let m = monitored().await;
    let leases = Leases::new(m.db(), "concern_locks");
    // The collection itself carries both, so no default of the client or
    // database applies.
    assert_eq!(
        leases.collection().write_concern(),
        Some(&WriteConcern::majority())
    );
    assert!(matches!(
        leases.collection().selection_criteria(),
        Some(SelectionCriteria::ReadPreference(ReadPreference::Primary))
    ));
    let reports = Report::model(m.db());
    m.monitor.clear();

    let lease = leases.acquire("r1", Duration::from_secs(30)).await.unwrap();
    lease.renew().await.unwrap();
    let mut report = reports.new_doc(Report { id: 1, total: 0 });
    report.save().fenced(&lease).await.unwrap();
    report.total = 5;
    report.save().fenced(&lease).await.unwrap();
    lease.release().await.unwrap();

    let sent = m.monitor.all();
    let names: Vec<&str> = sent.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["findAndModify", "update", "insert", "update", "update"],
        "{sent:#?}"
    );
    for s in &sent {
        assert!(
            is_majority(s),
            "{} sent without w: majority: {}",
            s.name,
            s.command
        );
    }

    // A stale holder's refused write: the write and the read that tells
    // the refusal apart both state theirs.
    let stale = leases
        .acquire("r1", Duration::from_millis(1))
        .await
        .unwrap();
    let next = leases.acquire("r1", Duration::from_secs(30)).await.unwrap();
    report.total = 6;
    report.save().fenced(&next).await.unwrap();
    m.monitor.clear();
    report.total = 7;
    let refused = report.save().fenced(&stale).await;
    assert!(matches!(refused, Err(odm::Error::Fenced(_))), "{refused:?}");
    let sent = m.monitor.all();
    assert_eq!(sent[0].name, "update");
    assert!(is_majority(&sent[0]), "{}", sent[0].command);
    let find = sent.iter().find(|s| s.name == "find").expect("a find");
    // On a direct connection to one server (the local test server) a
    // driver sends `primaryPreferred` whatever the mode, so reads work on
    // a secondary it was pointed at; the client's `secondaryPreferred` is
    // never what goes out.
    if let Ok(pref) = find.command.get_document("$readPreference") {
        let mode = pref.get_str("mode").unwrap();
        assert!(
            ["primary", "primaryPreferred"].contains(&mode),
            "{}",
            find.command
        );
    }
    next.release().await.unwrap();
    drop(stale);
    m.finish().await;
}

// Inside a transaction the commit carries the write concern and the
// server refuses one per operation: a fenced save there states none.
#[tokio::test]
async fn a_fenced_save_in_a_transaction_leaves_the_concern_to_the_commit() {
    let m = monitored().await;
    let leases = Leases::new(m.db(), "concern_locks_tx");
    let reports = Report::model(m.db());
    reports
        .new_doc(Report { id: 2, total: 0 })
        .save()
        .await
        .unwrap();
    let lease = leases.acquire("r2", Duration::from_secs(30)).await.unwrap();
    let mut report = reports.find_by_id(2).await.unwrap().unwrap();
    let mut session = m.client().start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    m.monitor.clear();
    report.total = 9;
    report
        .save()
        .fenced(&lease)
        .session(&mut session)
        .await
        .unwrap();
    session.commit_transaction().await.unwrap();
    // SecantusDB keeps the transaction's locks until its session ends.
    drop(session);
    let sent = m.monitor.all();
    let update = sent.iter().find(|s| s.name == "update").expect("update");
    assert!(write_concern(update).is_none(), "{}", update.command);
    assert_eq!(
        reports
            .collection()
            .find_one(doc! { "_id": 2 })
            .await
            .unwrap()
            .unwrap()
            .get_i64("total")
            .ok(),
        Some(9)
    );
    lease.release().await.unwrap();
    m.finish().await;
}
