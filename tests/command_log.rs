//! Every command odm sends is a `tracing` event (target `odm::command`):
//! at DEBUG its collection, operation, outcome and the shape of its filter
//! and update; the values only at TRACE; never a credential.

use crate::common;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use common::Monitored;
use mongodb::bson::doc;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use tracing::field::{Field, Visit};
use tracing::instrument::WithSubscriber;
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// One captured event: its level, target and fields (as text).
#[derive(Debug, Clone)]
struct Captured {
    level: Level,
    target: String,
    fields: BTreeMap<String, String>,
}

impl Captured {
    fn field(&self, name: &str) -> &str {
        self.fields.get(name).map_or("", String::as_str)
    }

    fn text(&self) -> String {
        format!("{:?}", self.fields)
    }
}

/// A subscriber that keeps every event up to `max`.
#[derive(Clone)]
struct Capture {
    max: Level,
    events: Arc<Mutex<Vec<Captured>>>,
}

impl Capture {
    fn new(max: Level) -> Capture {
        Capture {
            max,
            events: Arc::default(),
        }
    }

    /// The `odm::command` events so far, and forget them. Called inside
    /// the capture's scope, where it first has `tracing` compute every
    /// callsite's cached interest again (see [`fresh_interest`]).
    fn take(&self) -> Vec<Captured> {
        fresh_interest();
        let mut events = self.events.lock().unwrap();
        let commands = events
            .iter()
            .filter(|e| e.target == "odm::command")
            .cloned()
            .collect();
        events.clear();
        commands
    }
}

/// Has `tracing` compute every callsite's cached interest again, from
/// inside a capture's scope. A callsite first reached on a thread outside
/// any capture's scope (another test's, or this one's before its scope)
/// while only one capture is alive in the process caches the interest of
/// that thread's dispatcher, which wants nothing: its events would never
/// reach the capture. By the time a test takes its first events, every
/// callsite it reached is registered, so the events after reach it.
fn fresh_interest() {
    tracing::callsite::rebuild_interest_cache();
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
}

impl Subscriber for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= self.max
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        self.events.lock().unwrap().push(Captured {
            level: *event.metadata().level(),
            target: event.metadata().target().to_string(),
            fields,
        });
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users", optimistic_concurrency)]
struct User {
    #[serde(rename = "_id")]
    id: i32,
    #[odm(unique)]
    email: String,
    visits: u64,
}

const EMAIL: &str = "private-value@example.com";

fn new_user(id: i32, email: &str) -> User {
    User {
        id,
        email: email.into(),
        visits: 0,
    }
}

/// Creates user 1, forgets the events so far, then saves its email
/// changed to [`EMAIL`].
async fn created_then_renamed(users: &Model<User>, capture: &Capture) -> Doc<User> {
    let mut user = users
        .create(new_user(1, "first@example.com"))
        .await
        .unwrap();
    capture.take();
    user.email = EMAIL.into();
    user.save().await.unwrap();
    user
}

#[tokio::test]
async fn a_save_is_one_debug_event_without_values() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    users.sync_indexes().await.unwrap();
    let capture = Capture::new(Level::DEBUG);
    async {
        let mut user = created_then_renamed(&users, &capture).await;
        let events = capture.take();
        assert_eq!(events.len(), 1, "{events:?}");
        let e = &events[0];
        assert_eq!(e.level, Level::DEBUG);
        assert_eq!(
            (
                e.field("collection"),
                e.field("operation"),
                e.field("outcome"),
                e.field("code")
            ),
            ("users", "update", "ok", "0")
        );
        assert_eq!(e.field("filter"), "{ _id: ?, __v: ? }");
        assert_eq!(
            e.field("update"),
            "{ $set: { email: ? }, $inc: { __v: ? } }"
        );
        assert!(e.fields.contains_key("duration"), "{e:?}");
        assert!(!e.text().contains(EMAIL), "{e:?}");

        // A refused write: outcome and code, still without the key's value.
        let mut other = users.new_doc(new_user(2, EMAIL));
        assert!(matches!(other.save().await, Err(Error::DuplicateKey(_))));
        let events = capture.take();
        assert_eq!(events.len(), 1, "{events:?}");
        let e = &events[0];
        assert_eq!(
            (e.field("operation"), e.field("outcome"), e.field("code")),
            ("insert", "error", "11000")
        );
        assert_eq!(e.field("update"), "{ _id: ?, email: ?, visits: ?, __v: ? }");
        assert!(!e.text().contains(EMAIL), "{e:?}");

        // A save that cannot serialize sends nothing, so logs nothing.
        user.visits = u64::MAX;
        assert!(matches!(user.save().await, Err(Error::Serialize(_))));
        assert!(capture.take().is_empty());
    }
    .with_subscriber(capture.clone())
    .await;
    t.finish().await;
}

#[tokio::test]
async fn values_appear_at_trace_level_only() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let capture = Capture::new(Level::TRACE);
    async {
        created_then_renamed(&users, &capture).await;
        let found = users.find(doc! { "email": EMAIL }).await.unwrap();
        assert_eq!(found.len(), 1);
        let events = capture.take();
        let levels: Vec<_> = events
            .iter()
            .map(|e| (e.level, e.field("operation")))
            .collect();
        assert_eq!(
            levels,
            [
                (Level::DEBUG, "update"),
                (Level::TRACE, "update"),
                (Level::DEBUG, "find"),
                (Level::TRACE, "find"),
            ]
        );
        for e in &events {
            assert_eq!(e.text().contains(EMAIL), e.level == Level::TRACE, "{e:?}");
        }
        assert_eq!(
            events[1].field("update"),
            format!("{{ \"$set\": {{ \"email\": \"{EMAIL}\" }}, \"$inc\": {{ \"__v\": 1 }} }}")
        );
        assert_eq!(
            events[3].field("filter"),
            format!("{{ \"email\": \"{EMAIL}\" }}")
        );
    }
    .with_subscriber(capture.clone())
    .await;
    t.finish().await;
}

#[tokio::test]
async fn no_credential_is_ever_logged() {
    let t = TestDb::new().await;
    let admin = t.client.database("admin");
    admin
        .run_command(
            doc! { "createUser": "odm-log-user", "pwd": "pa55-w0rd-xyz", "roles": ["root"] },
        )
        .await
        .unwrap();
    let uri = odm_testing::uri().replacen("mongodb://", "mongodb://odm-log-user:pa55-w0rd-xyz@", 1);
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    let users = User::model(&client.database(t.db.name()));
    let capture = Capture::new(Level::TRACE);
    async {
        users.sync_indexes().await.unwrap();
        let mut user = users.create(new_user(1, EMAIL)).await.unwrap();
        user.visits = 1;
        user.save().await.unwrap();
        users.count(doc! {}).await.unwrap();
        user.delete().await.unwrap();
    }
    .with_subscriber(capture.clone())
    .await;
    let events = capture.take();
    let operations: Vec<_> = events
        .iter()
        .filter(|e| e.level == Level::DEBUG)
        .map(|e| e.field("operation"))
        .collect();
    assert_eq!(
        operations,
        [
            "listIndexes",
            "createIndexes",
            "insert",
            "update",
            "count",
            "delete"
        ]
    );
    for e in &events {
        let text = e.text();
        assert!(
            !text.contains("pa55-w0rd-xyz") && !text.contains("odm-log-user"),
            "{e:?}"
        );
    }
    client.shutdown().await;
    admin
        .run_command(doc! { "dropUser": "odm-log-user" })
        .await
        .unwrap();
    t.finish().await;
}

/// The command a logged operation is on the wire.
fn wire_name(operation: &str) -> &str {
    match operation {
        "count" => "aggregate",
        other => other,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_sent_is_logged_once() {
    use futures_util::TryStreamExt;
    let m = Monitored::new("command_log").await;
    let (client, db) = (m.client().clone(), m.db().clone());
    let users = User::model(&db);
    let leases = odm::lock::Leases::new(&db, "locks");
    let capture = Capture::new(Level::DEBUG);
    async {
        users.sync_indexes().await.unwrap();
        let mut a = users.create(new_user(1, "a@example.com")).await.unwrap();
        let mut stale = users.find_by_id(1).await.unwrap().unwrap();
        a.visits = 1;
        a.save().await.unwrap();
        stale.visits = 5;
        assert!(matches!(stale.save().await, Err(Error::Version(_))));
        stale.reload().await.unwrap();
        users.find(doc! {}).await.unwrap();
        let streamed: Vec<_> = users
            .find(doc! {})
            .stream()
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(streamed.len(), 1);
        users.count(doc! {}).await.unwrap();
        users
            .upsert(doc! { "_id": 2 })
            .set(doc! { "visits": 1_i64 })
            .set_on_insert(doc! { "email": "b@example.com" })
            .await
            .unwrap();
        users
            .claim(doc! { "_id": 2 }, doc! { "$inc": { "visits": 1 } })
            .await
            .unwrap();
        users
            .update_with_retry(2, 3, |u: &mut User| {
                u.visits += 1;
                Ok(())
            })
            .await
            .unwrap();
        let lease = leases
            .acquire("user:1", std::time::Duration::from_secs(10))
            .await
            .unwrap();
        lease.renew().await.unwrap();
        a.visits = 2;
        a.save().fenced(&lease).await.unwrap();
        lease.release().await.unwrap();
        let (x, y) = (&mut a, &mut stale);
        odm::transaction(&client, (x, y), |s, (x, _)| {
            Box::pin(async move {
                x.visits = 3;
                x.save().session(s).await
            })
        })
        .await
        .unwrap();
        let aborted: odm::Result<()> = odm::transaction(&client, &mut a, |s, x| {
            Box::pin(async move {
                x.visits = 4;
                x.save().session(s).await?;
                Err(Error::Validation(ValidationError::new("x", "no").into()))
            })
        })
        .await;
        assert!(aborted.is_err());
        a.delete().await.unwrap();
    }
    .with_subscriber(capture.clone())
    .await;
    let logged: Vec<String> = capture
        .take()
        .iter()
        .map(|e| wire_name(e.field("operation")).to_string())
        .collect();
    // Every command sent to the test's database, and the transactions'
    // ends (the connection's own handshake, authentication and cursor
    // batches aside).
    let sent: Vec<String> = m
        .monitor
        .all()
        .into_iter()
        .filter(|s| {
            let ours = s.db == db.name()
                || ["commitTransaction", "abortTransaction"].contains(&s.name.as_str());
            ours && !["getMore", "killCursors", "endSessions"].contains(&s.name.as_str())
        })
        .map(|s| s.name)
        .collect();
    assert_eq!(logged, sent);
    for name in [
        "insert",
        "update",
        "find",
        "aggregate",
        "delete",
        "findAndModify",
    ] {
        assert!(sent.iter().any(|s| s == name), "no {name} in {sent:?}");
    }
    for name in [
        "listIndexes",
        "createIndexes",
        "commitTransaction",
        "abortTransaction",
    ] {
        assert!(sent.iter().any(|s| s == name), "no {name} in {sent:?}");
    }
    m.finish().await;
}
