//! The driver's read options on `find`, `find_one` and `count`, by the
//! driver's names: each is asserted in the command sent (the monitor) and
//! in what comes back (a collation matching case-insensitively, a hint the
//! server refuses, a time limit the server enforces).

use crate::common;

use std::time::Duration;

use common::Monitored;
use mongodb::bson::{doc, Bson};
use mongodb::options::{
    Collation, CollationStrength, FindOneOptions, FindOptions, Hint, ReadConcern, ReadPreference,
    SelectionCriteria,
};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "people")]
struct Person {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(index)]
    email: String,
    age: i32,
}

/// Held by every test here that sends a time limit: the server's
/// `maxTimeAlwaysTimeOut` fail point (`max_time_is_enforced_by_the_server`)
/// times out the next operation with a limit from any client, so a read
/// of another test running beside it could take its one time-out.
static MAX_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn seeded(label: &str) -> (Monitored, Model<Person>) {
    let m = Monitored::new(label).await;
    let people = Person::model(m.db());
    people.sync_indexes().await.unwrap();
    for (id, email, age) in [
        (1, "ann@x.io", 30),
        (2, "Bob@x.io", 40),
        (3, "cid@x.io", 50),
    ] {
        let email = email.to_string();
        people.create(Person { id, email, age }).await.unwrap();
    }
    m.monitor.clear();
    (m, people)
}

fn case_insensitive() -> Collation {
    Collation::builder()
        .locale("en")
        .strength(CollationStrength::Secondary)
        .build()
}

fn ids(found: &[Doc<Person>]) -> Vec<i64> {
    found.iter().map(|p| p.id).collect()
}

#[tokio::test]
async fn find_sends_every_read_option_by_the_drivers_name() {
    let _time_limits = MAX_TIME.lock().await;
    let (m, people) = seeded("read-find").await;
    let found = people
        .find(doc! { "email": "BOB@X.IO" })
        .hint(Hint::Name("email_1".into()))
        .collation(case_insensitive())
        .max_time(Duration::from_secs(5))
        .comment("monthly report")
        .read_concern(ReadConcern::local())
        .selection_criteria(SelectionCriteria::ReadPreference(ReadPreference::Primary))
        .await
        .unwrap();
    assert_eq!(ids(&found), [2], "the collation matched case-insensitively");

    let sent = &m.monitor.named("find")[0].command;
    assert_eq!(sent.get_str("hint").unwrap(), "email_1");
    assert_eq!(
        sent.get_document("collation").unwrap(),
        &doc! { "locale": "en", "strength": 2 }
    );
    assert_eq!(sent.get("maxTimeMS"), Some(&Bson::Int32(5000)));
    assert_eq!(sent.get_str("comment").unwrap(), "monthly report");
    assert_eq!(
        sent.get_document("readConcern").unwrap(),
        &doc! { "level": "local" }
    );

    // Without the collation the same filter matches nothing.
    assert!(people
        .find(doc! { "email": "BOB@X.IO" })
        .await
        .unwrap()
        .is_empty());
    m.finish().await;
}

#[tokio::test]
async fn find_one_and_count_take_the_same_options() {
    let _time_limits = MAX_TIME.lock().await;
    let (m, people) = seeded("read-one-count").await;
    let one = people
        .find_one(doc! { "email": "ANN@X.IO" })
        .collation(case_insensitive())
        .hint(Hint::Keys(doc! { "email": 1 }))
        .comment("one")
        .max_time(Duration::from_millis(1500))
        .await
        .unwrap()
        .expect("found with the collation");
    assert_eq!(one.id, 1);
    let sent = &m.monitor.named("find")[0].command;
    assert_eq!(sent.get_document("hint").unwrap(), &doc! { "email": 1 });
    assert_eq!(sent.get_str("comment").unwrap(), "one");
    assert_eq!(sent.get("maxTimeMS"), Some(&Bson::Int32(1500)));
    assert_eq!(sent.get("limit"), Some(&Bson::Int64(1)));

    m.monitor.clear();
    let n = people
        .count(doc! { "email": { "$in": ["ANN@X.IO", "bob@x.io"] } })
        .collation(case_insensitive())
        .hint(Hint::Name("email_1".into()))
        .comment("how many")
        .read_concern(ReadConcern::majority())
        .await
        .unwrap();
    assert_eq!(n, 2);
    let sent = &m.monitor.named("aggregate")[0].command;
    assert_eq!(sent.get_str("hint").unwrap(), "email_1");
    assert_eq!(sent.get_str("comment").unwrap(), "how many");
    assert_eq!(
        sent.get_document("collation")
            .unwrap()
            .get_i32("strength")
            .unwrap(),
        2
    );
    assert_eq!(
        sent.get_document("readConcern").unwrap(),
        &doc! { "level": "majority" }
    );
    m.finish().await;
}

#[tokio::test]
async fn with_options_is_the_escape_hatch_and_later_setters_still_apply() {
    let (m, people) = seeded("read-with-options").await;
    let mut options = FindOptions::default();
    options.sort = Some(doc! { "age": -1 });
    options.limit = Some(2);
    options.allow_disk_use = Some(true);
    let found = people
        .find(doc! {})
        .with_options(options)
        .comment("after")
        .await
        .unwrap();
    assert_eq!(ids(&found), [3, 2]);
    let sent = &m.monitor.named("find")[0].command;
    assert!(sent.get_bool("allowDiskUse").unwrap());
    assert_eq!(sent.get_str("comment").unwrap(), "after");

    let mut one = FindOneOptions::default();
    one.sort = Some(doc! { "age": 1 });
    let first = people
        .find_one(doc! {})
        .with_options(one)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.id, 1);
    // An explicit sort wins over the one in the options.
    let mut one = FindOneOptions::default();
    one.sort = Some(doc! { "age": 1 });
    let last = people
        .find_one(doc! {})
        .sort(doc! { "age": -1 })
        .with_options(one)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(last.id, 3);
    m.finish().await;
}

#[tokio::test]
async fn a_hint_naming_no_index_is_the_servers_refusal() {
    let (m, people) = seeded("read-bad-hint").await;
    let err = people
        .find(doc! { "age": 30 })
        .hint(Hint::Name("no_such_index".into()))
        .await
        .unwrap_err();
    let Error::Driver(e) = &err else {
        panic!("{err:?}")
    };
    let mongodb::error::ErrorKind::Command(c) = &*e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(c.code, 2, "{c:?}");
    assert!(err.to_string().contains("hint"), "{err}");
    m.finish().await;
}

#[tokio::test]
async fn max_time_is_enforced_by_the_server() {
    let _time_limits = MAX_TIME.lock().await;
    let Some(m) = Monitored::with_fail_points("read-max-time").await else {
        return;
    };
    let people = Person::model(m.db());
    people
        .create(Person {
            id: 1,
            email: "a@x.io".into(),
            age: 1,
        })
        .await
        .unwrap();
    // The server's own switch: the next operation with a time limit runs out.
    let admin = m.client().database("admin");
    admin
        .run_command(doc! { "configureFailPoint": "maxTimeAlwaysTimeOut", "mode": { "times": 1 } })
        .await
        .unwrap();
    let err = people
        .find(doc! {})
        .max_time(Duration::from_secs(30))
        .await
        .unwrap_err();
    admin
        .run_command(doc! { "configureFailPoint": "maxTimeAlwaysTimeOut", "mode": "off" })
        .await
        .unwrap();
    let Error::Driver(e) = &err else {
        panic!("{err:?}")
    };
    let mongodb::error::ErrorKind::Command(c) = &*e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(c.code, 50, "MaxTimeMSExpired: {c:?}");
    // Without it, the same read runs.
    assert_eq!(
        people
            .find(doc! {})
            .max_time(Duration::from_secs(30))
            .await
            .unwrap()
            .len(),
        1
    );
    m.finish().await;
}
