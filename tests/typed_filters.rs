//! Typed filters, sorts and updates (`odm::typed`) against the server: the
//! documents each one matches, and the filter document sent, for the
//! contract's own lines (API.md "Typed reads") and every operator.
//! Compile-time misuse is in `tests/ui/typed-*`.

use crate::common;

use common::Monitored;
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Plan {
    Free,
    ProTeam,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Score {
    pub subject: String,
    pub points: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "members", optimistic_concurrency)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    #[serde(rename = "_id")]
    pub id: i32,
    pub age: u32,
    pub status: String,
    pub plan: Plan,
    pub email: Option<String>,
    pub tags: Vec<String>,
    pub scores: Vec<Score>,
    pub created_at: i64,
    pub logins: i32,
}

fn member(id: i32, age: u32, status: &str, email: Option<&str>, tags: &[&str]) -> Member {
    Member {
        id,
        age,
        status: status.into(),
        plan: if id % 2 == 0 {
            Plan::ProTeam
        } else {
            Plan::Free
        },
        email: email.map(str::to_string),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        scores: vec![Score {
            subject: "math".into(),
            points: id * 10,
        }],
        created_at: 1000 + i64::from(id),
        logins: 0,
    }
}

/// Six members: ids 1..=6.
async fn seeded(label: &str) -> (Monitored, Model<Member>) {
    let m = Monitored::new(label).await;
    let members = Model::<Member>::new(m.db());
    let all = [
        member(1, 17, "ACTIVE", Some("a@x"), &["rust", "go"]),
        member(2, 18, "PENDING", None, &["rust"]),
        member(3, 40, "ACTIVE", Some("c@x"), &[]),
        member(4, 65, "EXPIRED", Some("d@x"), &["go"]),
        member(5, 30, "PENDING", Some("e@x"), &["rust", "go", "c"]),
        member(6, 22, "ACTIVE", None, &["c"]),
    ];
    for value in all {
        members.create(value).await.unwrap();
    }
    // Member 6 stores its email as null; member 2 has none at all.
    members
        .collection()
        .update_one(doc! { "_id": 2 }, doc! { "$unset": { "email": "" } })
        .await
        .unwrap();
    m.monitor.clear();
    (m, members)
}

fn ids(found: &[Doc<Member>]) -> Vec<i32> {
    found.iter().map(|d| d.id).collect()
}

/// The filter of the last `find` sent.
fn last_find_filter(m: &Monitored) -> BsonDocument {
    let finds = m.monitor.named("find");
    let last = finds.last().expect("a find was sent");
    last.command.get_document("filter").unwrap().clone()
}

#[tokio::test]
async fn the_contract_lines_find_count_and_sort() {
    let (m, users) = seeded("typed-contract").await;
    let f = Member::fields();

    let adults = users
        .find(f.age().gte(18).and(f.status().is_in(["ACTIVE", "PENDING"])))
        .sort(f.id().asc())
        .await
        .unwrap();
    assert_eq!(ids(&adults), vec![2, 3, 5, 6]);
    assert_eq!(
        last_find_filter(&m),
        doc! { "age": { "$gte": 18_i64 }, "status": { "$in": ["ACTIVE", "PENDING"] } }
    );

    // Null counts as present; member 2 has no email field at all.
    assert_eq!(users.count(f.email().exists(true)).await.unwrap(), 5);
    assert_eq!(users.count(f.email().exists(false)).await.unwrap(), 1);

    let page = users
        .find(f.status().eq("ACTIVE"))
        .sort(f.created_at().desc())
        .limit(2)
        .await
        .unwrap();
    assert_eq!(ids(&page), vec![6, 3]);
    let sent = m.monitor.named("find").last().unwrap().command.clone();
    assert_eq!(
        sent.get_document("sort").unwrap(),
        &doc! { "createdAt": -1 }
    );

    let first = users
        .find_one(f.tags().contains("go"))
        .sort(f.age().desc())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.id, 4);
    m.finish().await;
}

#[tokio::test]
async fn comparisons_null_and_values_encoded_as_stored() {
    let (m, users) = seeded("typed-compare").await;
    let f = Member::fields();
    let found = |filter: odm::typed::Filter| {
        let users = users.clone();
        async move { ids(&users.find(filter).sort(doc! { "_id": 1 }).await.unwrap()) }
    };
    assert_eq!(found(f.age().gt(30)).await, vec![3, 4]);
    assert_eq!(found(f.age().lt(18)).await, vec![1]);
    assert_eq!(found(f.age().lte(18)).await, vec![1, 2]);
    assert_eq!(found(f.status().ne("ACTIVE")).await, vec![2, 4, 5]);
    assert_eq!(
        found(f.status().not_in(["ACTIVE", "PENDING"])).await,
        vec![4]
    );
    // `None` is null: it matches null and a missing field, as MongoDB does.
    assert_eq!(found(f.email().eq(None)).await, vec![2, 6]);
    assert_eq!(found(f.email().eq("c@x")).await, vec![3]);
    // The enum is compared as serde stores it (SCREAMING_SNAKE_CASE).
    assert_eq!(found(f.plan().eq(Plan::ProTeam)).await, vec![2, 4, 6]);
    assert_eq!(last_find_filter(&m), doc! { "plan": "PRO_TEAM" });
    // An owned String and a &String work where a &str does.
    let status = String::from("EXPIRED");
    assert_eq!(found(f.status().eq(&status)).await, vec![4]);
    assert_eq!(found(f.status().eq(status)).await, vec![4]);
    m.finish().await;
}

#[tokio::test]
async fn array_operators() {
    let (m, users) = seeded("typed-arrays").await;
    let f = Member::fields();
    let found = |filter: odm::typed::Filter| {
        let users = users.clone();
        async move { ids(&users.find(filter).sort(doc! { "_id": 1 }).await.unwrap()) }
    };
    assert_eq!(found(f.tags().contains("c")).await, vec![5, 6]);
    assert_eq!(found(f.tags().is_in(["c", "go"])).await, vec![1, 4, 5, 6]);
    assert_eq!(found(f.tags().all(["rust", "go"])).await, vec![1, 5]);
    assert_eq!(found(f.tags().size(0)).await, vec![3]);
    assert_eq!(found(f.tags().eq(vec!["rust".to_string()])).await, vec![2]);
    assert_eq!(
        found(f.scores().elem_match(Score::fields().points().gte(40))).await,
        vec![4, 5, 6]
    );
    assert_eq!(
        last_find_filter(&m),
        doc! { "scores": { "$elemMatch": { "points": { "$gte": 40 } } } }
    );
    let both = f
        .scores()
        .elem_match_with(|s| s.subject().eq("math").and(s.points().lt(25)));
    assert_eq!(found(both).await, vec![1, 2]);
    // A nested path outside `$elemMatch` is the parent's path.
    assert_eq!(found(f.scores().points().eq(30)).await, vec![3]);
    assert_eq!(last_find_filter(&m), doc! { "scores.points": 30 });
    m.finish().await;
}

#[tokio::test]
async fn combinators_and_raw_documents_compose() {
    let (m, users) = seeded("typed-logic").await;
    let f = Member::fields();
    let found = |filter: BsonDocument| {
        let users = users.clone();
        async move { ids(&users.find(filter).sort(doc! { "_id": 1 }).await.unwrap()) }
    };
    let young_or_old = f.age().lt(18).or(f.age().gt(60));
    assert_eq!(found(young_or_old.clone().into()).await, vec![1, 4]);
    assert_eq!(
        found(young_or_old.clone().not().into()).await,
        vec![2, 3, 5, 6]
    );
    assert_eq!(found((!young_or_old).into()).await, vec![2, 3, 5, 6]);
    assert_eq!(
        found(f.status().eq("ACTIVE").nor(f.tags().contains("go")).into()).await,
        vec![2]
    );
    // Same field twice: an `$and`.
    let band = f.age().gte(18).and(f.age().lt(30));
    assert_eq!(
        BsonDocument::from(band.clone()),
        doc! { "$and": [{ "age": { "$gte": 18_i64 } }, { "age": { "$lt": 30_i64 } }] }
    );
    assert_eq!(found(band.into()).await, vec![2, 6]);
    // A raw document where the builder stops, either way round.
    let raw = f
        .status()
        .eq("ACTIVE")
        .and(doc! { "tags.1": { "$exists": true } });
    assert_eq!(found(raw.into()).await, vec![1]);
    let filter = odm::typed::Filter::from(doc! { "_id": { "$mod": [2, 0] } }).and(f.age().gt(20));
    assert_eq!(found(filter.into()).await, vec![4, 6]);
    m.finish().await;
}

#[tokio::test]
async fn typed_updates_through_claim_keep_the_version_contract() {
    let (m, users) = seeded("typed-update").await;
    let f = Member::fields();
    let stale = users.find_by_id(5).await.unwrap().unwrap();
    let update = f
        .status()
        .set("EXPIRED")
        .and(f.logins().inc(2))
        .and(f.tags().push("expired"))
        .and(f.tags().pull("go"))
        .and(f.email().unset());
    assert_eq!(
        BsonDocument::from(update.clone()),
        doc! {
            "$set": { "status": "EXPIRED" },
            "$inc": { "logins": 2 },
            "$push": { "tags": "expired" },
            "$pull": { "tags": "go" },
            "$unset": { "email": "" },
        }
    );
    // `$push` and `$pull` on one array conflict on the server: split them.
    let (first, second) = (
        f.status()
            .set("EXPIRED")
            .and(f.logins().inc(2))
            .and(f.tags().push("expired")),
        f.tags().pull("go").and(f.email().unset()),
    );
    let claimed = users.claim(f.id().eq(5), first).await.unwrap().unwrap();
    assert_eq!((claimed.status.as_str(), claimed.logins), ("EXPIRED", 2));
    users.claim(f.id().eq(5), second).await.unwrap().unwrap();
    let stored = common::stored(&users, 5).await;
    assert_eq!(stored.get_str("status").unwrap(), "EXPIRED");
    assert_eq!(stored.get_i32("logins").unwrap(), 2);
    assert_eq!(
        stored.get_array("tags").unwrap(),
        &vec![Bson::from("rust"), Bson::from("c"), Bson::from("expired")]
    );
    assert!(!stored.contains_key("email"));
    assert_eq!(
        stored.get_i32("__v").unwrap(),
        2,
        "each claim bumps the version"
    );
    // A copy loaded before them fails its versioned save.
    let mut stale = stale;
    stale.age = 31;
    assert!(matches!(stale.save().await, Err(Error::Version(_))));
    m.finish().await;
}

#[tokio::test]
async fn a_value_without_bson_form_is_refused_by_the_server_and_nothing_is_written() {
    #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    #[odm(collection = "counters")]
    struct Counter {
        #[serde(rename = "_id")]
        id: i32,
        hits: u64,
    }
    let m = Monitored::new("typed-unencodable").await;
    let counters = Model::<Counter>::new(m.db());
    counters.create(Counter { id: 1, hits: 1 }).await.unwrap();
    let f = Counter::fields();
    let err = counters.find(f.hits().gt(u64::MAX)).await.unwrap_err();
    assert!(err.to_string().contains("$odmUnencodableValue"), "{err}");
    let err = counters
        .claim(f.id().eq(1), f.hits().set(u64::MAX))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("$odmUnencodableValue"), "{err}");
    assert_eq!(
        common::stored(&counters, 1).await.get_i64("hits").unwrap(),
        1
    );
    m.finish().await;
}
