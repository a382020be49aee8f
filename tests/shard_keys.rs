//! `#[odm(shard_key(..))]`: the shard key as loaded is in the filter of
//! every save, reload and delete, and changing it fails before anything
//! is sent, by a save, a claim or the update of an upsert.
//!
//! This server is one replica set, not a sharded cluster: these tests prove
//! what odm sends (the exact filter) and that a document whose stored shard
//! key differs from the loaded one is not matched. The routing itself is
//! mongos's, and is not tested here.

use crate::common;

use common::Monitored;
use odm::bson::Bson;
use odm::prelude::*;
use odm::ShardKeyRule;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "orders",
    shard_key(tenant, region),
    optimistic_concurrency
)]
struct Order {
    #[serde(rename = "_id")]
    id: ObjectId,
    tenant: i32,
    #[serde(rename = "regionCode")]
    region: String,
    total: i64,
    #[serde(default)]
    lines: Vec<String>,
}

fn order() -> Order {
    Order {
        id: ObjectId::new(),
        tenant: 7,
        region: "eu".into(),
        total: 10,
        lines: vec![],
    }
}

async fn stored(orders: &Model<Order>, id: ObjectId) -> Option<odm::bson::Document> {
    orders
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
}

async fn stored_total(orders: &Model<Order>, id: ObjectId) -> i64 {
    let stored = stored(orders, id).await.expect("stored");
    stored.get_i64("total").unwrap()
}

#[tokio::test]
async fn every_save_filter_holds_the_shard_key_as_loaded() {
    let t = TestDb::new().await;
    let orders = Order::model(&t.db);
    let mut o = orders.create(order()).await.unwrap();
    o.total = 12;
    o.lines.push("apple".into());
    assert_eq!(
        o.changes().unwrap().0,
        doc! { "_id": o.id, "tenant": 7, "regionCode": "eu", "__v": 0 }
    );
    o.save().await.unwrap();
    let s = stored(&orders, o.id).await.unwrap();
    assert_eq!(
        (s.get_i64("total").unwrap(), s.get_i32("__v").unwrap()),
        (12, 1)
    );

    // Loaded from the store, the key comes from the stored document.
    let mut again = orders.find_by_id(o.id).await.unwrap().unwrap();
    again.total = 13;
    assert_eq!(
        again.changes().unwrap().0,
        doc! { "_id": o.id, "tenant": 7, "regionCode": "eu", "__v": 1 }
    );
    again.save().await.unwrap();
    assert_eq!(stored_total(&orders, o.id).await, 13);
    t.finish().await;
}

#[tokio::test]
async fn changing_a_shard_key_field_fails_before_anything_is_sent() {
    let t = TestDb::new().await;
    let orders = Order::model(&t.db);
    let mut o = orders.create(order()).await.unwrap();
    o.region = "us".into();
    o.total = 99;
    let pending = o.changes();
    let e = o.save().await.unwrap_err();
    let Error::ShardKey(k) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(
        (k.field.as_str(), k.path.as_str()),
        ("regionCode", "regionCode")
    );
    assert_eq!(
        e.to_string(),
        format!(
            "cannot change shard key field \"regionCode\" (path \"regionCode\") of document \"{}\" \
             in collection \"orders\": a stored document keeps its shard key; nothing was sent",
            o.id.to_hex()
        )
    );
    // Nothing changed, and the Doc keeps its changes and version.
    let s = stored(&orders, o.id).await.unwrap();
    assert_eq!(
        (
            s.get_str("regionCode").unwrap(),
            s.get_i64("total").unwrap()
        ),
        ("eu", 10)
    );
    assert_eq!((o.changes(), o.version()), (pending, Some(0)));
    // Put the key back: the rest saves.
    o.region = "eu".into();
    o.save().await.unwrap();
    assert_eq!(stored_total(&orders, o.id).await, 99);
    t.finish().await;
}

#[tokio::test]
async fn reload_and_delete_match_the_shard_key_too() {
    let t = TestDb::new().await;
    let orders = Order::model(&t.db);
    let mut o = orders.create(order()).await.unwrap();
    // Someone moves the stored document to another tenant behind odm's back:
    // a filter with the loaded key no longer matches it.
    orders
        .collection()
        .update_one(doc! { "_id": o.id }, doc! { "$set": { "tenant": 8 } })
        .await
        .unwrap();
    let e = o.reload().await.unwrap_err();
    let Error::NotFound(n) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(
        n.filter,
        doc! { "_id": o.id, "tenant": 7, "regionCode": "eu" }
    );
    let e = o.delete().await.unwrap_err();
    assert!(
        matches!(&e, Error::NotFound(n) if n.filter.get_i32("tenant").ok() == Some(7)),
        "{e:?}"
    );
    assert!(stored(&orders, o.id).await.is_some(), "not deleted");

    // A fresh load carries the new key, and then reload and delete match.
    let mut fresh = orders.find_by_id(o.id).await.unwrap().unwrap();
    fresh.reload().await.unwrap();
    assert_eq!(fresh.tenant, 8);
    fresh.delete().await.unwrap();
    assert!(stored(&orders, o.id).await.is_none());
    t.finish().await;
}

/// A stored document without a shard key field is matched by `null`, as
/// MongoDB treats a missing shard key field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "invoices", shard_key(zone))]
struct Invoice {
    #[serde(rename = "_id")]
    id: i64,
    #[serde(default)]
    zone: Option<String>,
    paid: bool,
}

#[tokio::test]
async fn a_missing_shard_key_field_is_matched_as_null() {
    let t = TestDb::new().await;
    let invoices = Invoice::model(&t.db);
    invoices
        .collection()
        .insert_one(doc! { "_id": 1_i64, "paid": false, "__v": 0 })
        .await
        .unwrap();
    let mut i = invoices.find_by_id(1_i64).await.unwrap().unwrap();
    i.paid = true;
    assert_eq!(i.changes().unwrap().0, doc! { "_id": 1_i64, "zone": null });
    i.save().await.unwrap();
    let s = invoices
        .collection()
        .find_one(doc! { "_id": 1_i64 })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(s, doc! { "_id": 1_i64, "paid": true, "__v": 0 });
    t.finish().await;
}

/// A `ShardKey` error of a claim or an upsert: no one document named.
fn refused_field(e: &Error) -> (&str, &str) {
    let Error::ShardKey(k) = e else {
        panic!("{e:?}")
    };
    assert_eq!(k.id, Bson::Null);
    (k.field.as_str(), k.path.as_str())
}

#[tokio::test]
async fn a_claim_that_writes_the_shard_key_is_refused_before_sending() {
    let m = Monitored::new("shard-claim").await;
    let orders = Order::model(m.db());
    let o = orders.create(order()).await.unwrap();
    m.monitor.clear();
    for update in [
        doc! { "$set": { "total": 1, "regionCode": "us" } },
        doc! { "$inc": { "tenant": 1 } },
        doc! { "$unset": { "regionCode": "" } },
        doc! { "$rename": { "total": "regionCode" } },
    ] {
        let e = orders
            .claim(doc! { "_id": o.id }, update.clone())
            .await
            .unwrap_err();
        let field = if update.get_document("$inc").is_ok() {
            "tenant"
        } else {
            "regionCode"
        };
        assert_eq!(refused_field(&e), (field, field), "{update}");
        assert_eq!(
            e.to_string(),
            format!(
                "cannot change shard key field \"{field}\" (path \"{field}\") of the matched \
                 documents in collection \"orders\": a stored document keeps its shard key; \
                 nothing was sent"
            )
        );
    }
    assert!(m.monitor.all().is_empty(), "nothing was sent");
    let s = stored(&orders, o.id).await.unwrap();
    assert_eq!(
        (
            s.get_i32("tenant").unwrap(),
            s.get_str("regionCode").unwrap()
        ),
        (7, "eu")
    );
    // A claim of other fields goes through, filtered as given.
    let claimed = orders
        .claim(
            doc! { "_id": o.id, "tenant": 7, "regionCode": "eu" },
            doc! { "$set": { "total": 11 } },
        )
        .await
        .unwrap()
        .expect("claimed");
    assert_eq!((claimed.total, claimed.version()), (11, Some(1)));
    m.finish().await;
}

#[tokio::test]
async fn an_upsert_must_fix_the_shard_key_and_may_not_change_it() {
    let m = Monitored::new("shard-upsert").await;
    let orders = Order::model(m.db());
    let o = orders.create(order()).await.unwrap();
    m.monitor.clear();
    // A `set` of a shard key field would change the stored document's key.
    let e = orders
        .upsert(doc! { "_id": o.id, "tenant": 7, "regionCode": "eu" })
        .set(doc! { "total": 5, "regionCode": "us" })
        .await
        .unwrap_err();
    assert_eq!(refused_field(&e), ("regionCode", "regionCode"));
    let Error::ShardKey(k) = &e else {
        unreachable!()
    };
    assert_eq!(k.rule, ShardKeyRule::Changed);
    // A filter that does not fix the whole key cannot be routed.
    for filter in [
        doc! { "_id": o.id, "tenant": 7 },
        doc! { "_id": o.id, "tenant": 7, "regionCode": { "$in": ["eu"] } },
    ] {
        let e = orders
            .upsert(filter.clone())
            .set(doc! { "total": 5 })
            .await
            .unwrap_err();
        assert_eq!(refused_field(&e), ("regionCode", "regionCode"), "{filter}");
        let Error::ShardKey(k) = &e else {
            unreachable!()
        };
        assert_eq!(k.rule, ShardKeyRule::NotInFilter);
        assert_eq!(
            e.to_string(),
            "upsert into collection \"orders\" does not fix shard key field \"regionCode\" by \
             equality in its filter: MongoDB routes an upsert by its whole shard key; nothing \
             was sent"
        );
    }
    assert!(m.monitor.all().is_empty(), "nothing was sent");
    assert_eq!(stored_total(&orders, o.id).await, 10);

    // With the whole key in the filter: inserted with it, then updated.
    let id = ObjectId::new();
    let key = doc! { "_id": id, "$and": [{ "tenant": 9 }, { "regionCode": { "$eq": "ap" } }] };
    let up = orders
        .upsert(key.clone())
        .set(doc! { "total": 21 })
        .set_on_insert(doc! { "lines": [] })
        .await
        .unwrap();
    assert_eq!((up.tenant, up.region.as_str(), up.total), (9, "ap", 21));
    let again = orders.upsert(key).set(doc! { "total": 22 }).await.unwrap();
    assert_eq!((again.region.as_str(), again.total), ("ap", 22));
    assert_eq!(again.version(), Some(1));
    m.finish().await;
}

/// `set_on_insert` of a shard key field is refused like `set`, unless it is
/// the very value the filter fixes (issue 31, item 6): a document inserted
/// under another key than the one the upsert was routed by would not
/// match its own filter.
#[tokio::test]
async fn set_on_insert_of_another_shard_key_value_is_refused_before_sending() {
    let m = Monitored::new("shard-set-on-insert").await;
    let orders = Order::model(m.db());
    let id = ObjectId::new();
    let filter = doc! { "_id": id, "tenant": 7, "regionCode": "eu" };
    for on_insert in [
        doc! { "regionCode": "us" },
        doc! { "tenant": 8, "total": 1 },
        doc! { "regionCode.zone": "a" },
    ] {
        let e = orders
            .upsert(filter.clone())
            .set(doc! { "total": 5 })
            .set_on_insert(on_insert.clone())
            .await
            .unwrap_err();
        let Error::ShardKey(k) = &e else {
            panic!("{on_insert}: {e:?}")
        };
        assert_eq!(k.rule, ShardKeyRule::Changed, "{on_insert}");
    }
    assert!(m.monitor.all().is_empty(), "nothing was sent");
    // The filter's own value changes nothing: accepted.
    let up = orders
        .upsert(filter)
        .set(doc! { "total": 5 })
        .set_on_insert(doc! { "regionCode": "eu", "lines": [] })
        .await
        .unwrap();
    assert_eq!((up.tenant, up.region.as_str(), up.total), (7, "eu", 5));
    m.finish().await;
}
