//! `find_one(..).lean()` and `find_one(..).projection::<P>()`: one plain
//! value, as `find` reads many (issue 19), against the server: the value
//! returned and the command sent. Projecting into a type without `Fields`
//! does not compile (`tests/ui/typed-find-one-projection-without-fields.rs`).

use crate::common;

use common::Monitored;
use mongodb::bson::{doc, Bson};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "profiles", optimistic_concurrency)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    #[serde(rename = "_id")]
    pub id: i32,
    pub display_name: String,
    pub city: String,
    pub score: i32,
}

/// What a header shows of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub display_name: String,
}

async fn seeded(label: &str) -> (Monitored, Model<Profile>) {
    let m = Monitored::new(label).await;
    let profiles = Model::<Profile>::new(m.db());
    for (id, name, city, score) in [
        (1, "Ann", "Oslo", 5),
        (2, "Bob", "Oslo", 9),
        (3, "Cid", "Rome", 7),
    ] {
        let (display_name, city) = (name.to_string(), city.to_string());
        profiles
            .create(Profile {
                id,
                display_name,
                city,
                score,
            })
            .await
            .unwrap();
    }
    m.monitor.clear();
    (m, profiles)
}

#[tokio::test]
async fn lean_reads_one_plain_value_with_the_sort_sent() {
    let (m, profiles) = seeded("one-lean").await;
    let f = Profile::fields();
    let best: Option<Profile> = profiles
        .find_one(f.city().eq("Oslo"))
        .lean()
        .sort(f.score().desc())
        .await
        .unwrap();
    assert_eq!(
        best.map(|p| (p.id, p.display_name)),
        Some((2, "Bob".to_string()))
    );
    let none = profiles.find_by_id(9).lean().await.unwrap();
    assert_eq!(none, None);
    let finds = m.monitor.named("find");
    assert_eq!(finds.len(), 2);
    let sent = &finds[0].command;
    assert_eq!(
        sent.get_document("filter").unwrap(),
        &doc! { "city": "Oslo" }
    );
    assert_eq!(sent.get_document("sort").unwrap(), &doc! { "score": -1 });
    assert!(matches!(
        sent.get("limit"),
        Some(Bson::Int32(1) | Bson::Int64(1))
    ));
    assert!(!sent.contains_key("projection"));
    m.finish().await;
}

#[tokio::test]
async fn a_projection_asks_for_its_fields_and_names_a_missing_one() {
    let (m, profiles) = seeded("one-projection").await;
    let header = profiles.find_by_id(3).projection::<Header>().await.unwrap();
    assert_eq!(
        header,
        Some(Header {
            display_name: "Cid".into()
        })
    );
    let sent = &m.monitor.named("find")[0].command;
    assert_eq!(
        sent.get_document("projection").unwrap(),
        &doc! { "displayName": 1 }
    );

    profiles
        .collection()
        .update_one(doc! { "_id": 1 }, doc! { "$unset": { "displayName": "" } })
        .await
        .unwrap();
    let e = profiles
        .find_by_id(1)
        .projection::<Header>()
        .await
        .unwrap_err();
    let Error::Deserialize(d) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(
        (d.id.clone(), d.path.as_str()),
        (Bson::Int32(1), "displayName")
    );
    m.finish().await;
}

#[tokio::test]
async fn lean_reads_inside_a_session() {
    let (m, profiles) = seeded("one-session").await;
    let mut session = m.client().start_session().await.unwrap();
    let found = profiles
        .find_by_id(1)
        .lean()
        .session(&mut session)
        .await
        .unwrap();
    assert_eq!(found.map(|p| p.score), Some(5));
    let lsid = session.id().clone();
    assert_eq!(
        m.monitor.named("find")[0]
            .command
            .get_document("lsid")
            .unwrap(),
        &lsid
    );
    drop(session);
    m.finish().await;
}
