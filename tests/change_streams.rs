//! `model.watch()`: the changes of a model's collection as typed events,
//! against the server. Each test asserts the events a user reads (their
//! kind, id, document, version) and, with the command monitor, what was
//! sent: the `$match` a filter becomes, the token a resume carries, and
//! the driver reopening the stream after a resumable error.

use crate::common;

use std::time::Duration;

use common::Monitored;
use futures_util::StreamExt;
use mongodb::bson::{doc, Bson};
use odm::prelude::*;
use odm::watch::{ChangeEvent, ChangeStream, OperationType, ResumeToken, WatchErrorKind};
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "members")]
struct Member {
    #[serde(rename = "_id")]
    id: i64,
    name: String,
    status: String,
}

fn member(id: i64, status: &str) -> Member {
    Member {
        id,
        name: format!("m{id}"),
        status: status.into(),
    }
}

/// The next event, failing the test after 10 s instead of hanging.
async fn next(stream: &mut ChangeStream<Member>) -> odm::Result<ChangeEvent<Member>> {
    tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("an event within 10 s")
        .expect("the stream is open")
}

/// A stream that asks the server every 100 ms, so waits stay short.
async fn watch(members: &Model<Member>) -> ChangeStream<Member> {
    members
        .watch()
        .max_await_time(Duration::from_millis(100))
        .await
        .expect("watch")
}

#[tokio::test]
async fn inserts_updates_replaces_and_deletes_arrive_typed_in_order() {
    let t = TestDb::new().await;
    let members = Member::model(&t.db);
    let mut stream = watch(&members).await;

    // The events are read as the writes land: an update's document is
    // looked up when its event is read.
    let mut doc = members.create(member(1, "NEW")).await.unwrap();
    let insert = next(&mut stream).await.unwrap();
    assert_eq!(insert.operation_type, OperationType::Insert);
    assert_eq!(insert.id(), Some(&Bson::Int64(1)));
    assert_eq!(insert.full_document, Some(member(1, "NEW")));
    assert_eq!(insert.version, Some(0));

    doc.status = "ACTIVE".into();
    doc.save().await.unwrap();

    let update = next(&mut stream).await.unwrap();
    assert_eq!(update.operation_type, OperationType::Update);
    assert_eq!(update.full_document, Some(member(1, "ACTIVE")));
    let description = update
        .update_description
        .as_ref()
        .expect("an update says what changed");
    assert_eq!(description.updated_fields, doc! { "status": "ACTIVE" });
    assert!(description.removed_fields.is_empty());

    members
        .collection()
        .replace_one(
            doc! { "_id": 1_i64 },
            doc! { "name": "m1", "status": "GONE", "__v": 7 },
        )
        .await
        .unwrap();

    let replace = next(&mut stream).await.unwrap();
    assert_eq!(replace.operation_type, OperationType::Replace);
    assert_eq!(replace.full_document, Some(member(1, "GONE")));
    assert_eq!(replace.version, Some(7));

    doc.delete().await.unwrap();

    let delete = next(&mut stream).await.unwrap();
    assert_eq!(delete.operation_type, OperationType::Delete);
    assert_eq!(delete.id(), Some(&Bson::Int64(1)));
    assert_eq!(delete.full_document, None);

    // Each event's token is the stream's latest once it is delivered.
    assert_eq!(stream.resume_token().as_ref(), Some(delete.resume_token()));
    drop(stream); // a client shuts down once its cursors are gone
    t.finish().await;
}

#[tokio::test]
async fn a_filter_on_the_model_matches_the_events_documents() {
    let m = Monitored::new("watch-filter").await;
    let members = Member::model(m.db());
    m.monitor.clear();
    let mut stream = members
        .watch()
        .filter(doc! { "status": "ACTIVE" })
        .max_await_time(Duration::from_millis(100))
        .await
        .unwrap();
    let opened = m.monitor.named("aggregate");
    assert_eq!(opened.len(), 1);
    let pipeline = opened[0].command.get_array("pipeline").unwrap();
    assert_eq!(
        pipeline[1],
        Bson::Document(doc! { "$match": { "$or": [
            { "operationType": { "$nin": ["insert", "update", "replace"] } },
            { "fullDocument.status": "ACTIVE" },
        ] } })
    );

    members.create(member(1, "NEW")).await.unwrap();
    members.create(member(2, "ACTIVE")).await.unwrap();
    let mut one = members.find_by_id(1).await.unwrap().unwrap();
    one.status = "ACTIVE".into();
    one.save().await.unwrap();
    members
        .find_by_id(2)
        .await
        .unwrap()
        .unwrap()
        .delete()
        .await
        .unwrap();

    let seen: Vec<(OperationType, Bson)> = [
        next(&mut stream).await.unwrap(),
        next(&mut stream).await.unwrap(),
        next(&mut stream).await.unwrap(),
    ]
    .into_iter()
    .map(|e| (e.operation_type.clone(), e.id().cloned().unwrap()))
    .collect();
    // The NEW insert is filtered out; the delete carries no document and passes.
    assert_eq!(
        seen,
        [
            (OperationType::Insert, Bson::Int64(2)),
            (OperationType::Update, Bson::Int64(1)),
            (OperationType::Delete, Bson::Int64(2)),
        ]
    );
    drop(stream);
    m.finish().await;
}

#[tokio::test]
async fn a_filter_operator_that_reads_the_whole_event_is_refused() {
    let t = TestDb::new().await;
    let members = Member::model(&t.db);
    let err = members
        .watch()
        .filter(doc! { "$expr": { "$eq": ["$status", "ACTIVE"] } })
        .await
        .unwrap_err();
    let Error::Watch(e) = &err else {
        panic!("{err:?}")
    };
    assert!(matches!(e.kind, WatchErrorKind::Filter { .. }), "{e:?}");
    assert!(err.to_string().contains("$expr cannot be applied"), "{err}");
    t.finish().await;
}

#[tokio::test]
async fn a_filter_naming_a_key_of_the_events_is_refused_pointing_at_the_pipeline() {
    let t = TestDb::new().await;
    let members = Member::model(&t.db);
    for key in [
        "operationType",
        "ns.coll",
        "updateDescription.updatedFields.status",
    ] {
        let err = members.watch().filter(doc! { key: "x" }).await.unwrap_err();
        let Error::Watch(e) = &err else {
            panic!("{err:?}")
        };
        assert!(matches!(e.kind, WatchErrorKind::Filter { .. }), "{e:?}");
        let text = err.to_string();
        assert!(
            text.contains(&format!("\"{key}\" names a key of the change events")),
            "{text}"
        );
        assert!(text.contains("`pipeline`"), "{text}");
    }
    // The same condition as a stage of the pipeline is taken.
    let mut stream = members
        .watch()
        .pipeline([doc! { "$match": { "operationType": "insert" } }])
        .await
        .unwrap();
    members.create(member(1, "NEW")).await.unwrap();
    assert_eq!(
        next(&mut stream).await.unwrap().id(),
        Some(&odm::bson::Bson::Int64(1))
    );
    // The client's shutdown waits for its cursors.
    drop(stream);
    t.finish().await;
}

#[tokio::test]
async fn a_stored_token_resumes_after_its_event_and_nothing_is_missed() {
    let t = TestDb::new().await;
    let members = Member::model(&t.db);
    let mut stream = watch(&members).await;
    for id in 1..=3 {
        members.create(member(id, "NEW")).await.unwrap();
    }
    let first = next(&mut stream).await.unwrap();
    // The token is stored (as a document here) and the stream dropped.
    let stored = common::bson::to_bson(first.resume_token()).unwrap();
    drop(stream);
    members.create(member(4, "NEW")).await.unwrap();

    let token: ResumeToken = common::bson::from_bson(stored).unwrap();
    let mut resumed = members
        .watch()
        .resume_after(token)
        .max_await_time(Duration::from_millis(100))
        .await
        .unwrap();
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(next(&mut resumed).await.unwrap().id().cloned().unwrap());
    }
    assert_eq!(ids, [Bson::Int64(2), Bson::Int64(3), Bson::Int64(4)]);
    drop(resumed);
    t.finish().await;
}

#[tokio::test]
async fn a_token_from_another_collection_is_refused_before_anything_is_sent() {
    let m = Monitored::new("watch-foreign").await;
    let members = Member::model(m.db());
    let tenant = Model::<Member>::with_collection(m.db(), "tenant_42_members");
    let mut stream = watch(&members).await;
    members.create(member(1, "NEW")).await.unwrap();
    let token = next(&mut stream).await.unwrap().resume_token().clone();

    m.monitor.clear();
    let err = tenant
        .watch()
        .resume_after(token.clone())
        .await
        .unwrap_err();
    assert_eq!(m.monitor.started("aggregate"), 0, "nothing is sent");
    let Error::Watch(e) = &err else {
        panic!("{err:?}")
    };
    let db = m.db().name();
    assert_eq!(
        e.kind,
        WatchErrorKind::ForeignToken {
            token: format!("{db}.members")
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "cannot resume a change stream on \"{db}.tenant_42_members\" with a resume token \
             from \"{db}.members\": a token resumes only the stream of the collection it came from"
        )
    );
    // Its own collection takes it.
    let own = members.watch().resume_after(token).await;
    assert!(own.is_ok(), "{own:?}");
    drop((stream, own));
    m.finish().await;
}

#[tokio::test]
async fn a_resumable_error_reopens_the_stream_after_the_last_event() {
    let Some(m) = Monitored::with_fail_points("watch-resume").await else {
        return;
    };
    let members = Member::model(m.db());
    let mut stream = watch(&members).await;
    members.create(member(1, "NEW")).await.unwrap();
    let first = next(&mut stream).await.unwrap();
    assert_eq!(first.id(), Some(&Bson::Int64(1)));

    m.monitor.clear();
    // The next getMore fails as a primary stepping down would make it.
    let fail_point = m
        .fail_with(
            &["getMore"],
            1,
            doc! { "errorCode": 6, "errorLabels": ["ResumableChangeStreamError"] },
        )
        .await;
    members.create(member(2, "NEW")).await.unwrap();
    members.create(member(3, "NEW")).await.unwrap();
    let second = next(&mut stream).await.unwrap();
    let third = next(&mut stream).await.unwrap();
    fail_point.off().await;

    assert_eq!(second.id(), Some(&Bson::Int64(2)));
    assert_eq!(third.id(), Some(&Bson::Int64(3)));
    assert_eq!(m.monitor.failed("getMore"), 1, "the fault fired");
    let reopened = m.monitor.named("aggregate");
    assert_eq!(reopened.len(), 1, "the driver reopened the stream once");
    let stage = reopened[0].command.get_array("pipeline").unwrap()[0].clone();
    let change_stream = stage
        .as_document()
        .unwrap()
        .get_document("$changeStream")
        .unwrap();
    assert_eq!(
        change_stream.get("resumeAfter"),
        common::bson::to_bson(first.resume_token().as_driver())
            .ok()
            .as_ref(),
        "from the last delivered event: {change_stream}"
    );
    drop(stream);
    m.finish().await;
}

#[tokio::test]
async fn a_document_that_does_not_load_is_one_error_and_the_stream_goes_on() {
    let t = TestDb::new().await;
    let members = Member::model(&t.db);
    let mut stream = watch(&members).await;
    members
        .collection()
        .insert_one(doc! { "_id": 1_i64, "name": "m1", "status": 5 })
        .await
        .unwrap();
    members.create(member(2, "NEW")).await.unwrap();

    let err = next(&mut stream).await.unwrap_err();
    let Error::Deserialize(e) = &err else {
        panic!("{err:?}")
    };
    assert_eq!((e.id.clone(), e.path.as_str()), (Bson::Int64(1), "status"));
    let after = next(&mut stream).await.unwrap();
    assert_eq!(after.full_document, Some(member(2, "NEW")));
    drop(stream);
    t.finish().await;
}
