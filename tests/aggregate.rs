//! Typed aggregation (issue 19, item 5) against the server: the pipeline
//! sent (builder helpers and raw stages, in order) with the driver's
//! options, results decoded into a chosen type, awaited or streamed, a
//! result that does not fit refused by id and field, and inside a session.

use crate::common;

use std::time::Duration;

use common::Monitored;
use futures_util::{StreamExt, TryStreamExt};
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use mongodb::options::{Collation, CollationStrength, Hint};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "orders")]
#[serde(rename_all = "camelCase")]
pub struct Order {
    #[serde(rename = "_id")]
    pub id: i32,
    #[odm(index)]
    pub customer: String,
    pub status: String,
    pub total_cents: i64,
}

/// One row of a report: what a customer spent.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spend {
    #[serde(rename = "_id")]
    pub customer: String,
    pub total_cents: i64,
    pub orders: i32,
}

/// Two fields of an order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
#[serde(rename_all = "camelCase")]
pub struct OrderLine {
    pub customer: String,
    pub total_cents: i64,
}

fn order(id: i32, customer: &str, status: &str, total_cents: i64) -> Order {
    Order {
        id,
        customer: customer.into(),
        status: status.into(),
        total_cents,
    }
}

async fn seeded(label: &str) -> (Monitored, Model<Order>) {
    let m = Monitored::new(label).await;
    let orders = Order::model(m.db());
    orders.sync_indexes().await.unwrap();
    let all = vec![
        order(1, "ann", "PAID", 1000),
        order(2, "bob", "PAID", 500),
        order(3, "ann", "PAID", 250),
        order(4, "cid", "OPEN", 9999),
        order(5, "bob", "PAID", 700),
        order(6, "dee", "PAID", 100),
        order(7, "Ann", "PAID", 1),
    ];
    for outcome in orders.insert_many(all).await.unwrap() {
        outcome.unwrap();
    }
    m.monitor.clear();
    (m, orders)
}

fn group_by_customer() -> BsonDocument {
    doc! { "$group": {
        "_id": "$customer",
        "totalCents": { "$sum": "$totalCents" },
        "orders": { "$sum": 1 },
    } }
}

#[tokio::test]
async fn helpers_and_raw_stages_run_in_order_into_a_typed_result() {
    let (m, orders) = seeded("agg-typed").await;
    let f = Order::fields();
    let spend: Vec<Spend> = orders
        .aggregate([doc! { "$match": { "totalCents": { "$gte": 100 } } }])
        .filter(f.status().eq("PAID"))
        .stage(group_by_customer())
        .sort(doc! { "totalCents": -1 }) // ann 1250, bob 1200, dee 100 ("Ann" has 1)
        .skip(1)
        .limit(2)
        .with_type::<Spend>()
        .allow_disk_use(true)
        .batch_size(10)
        .max_time(Duration::from_secs(5))
        .comment("spend report")
        .await
        .unwrap();
    assert_eq!(
        spend,
        vec![
            Spend {
                customer: "bob".into(),
                total_cents: 1200,
                orders: 2
            },
            Spend {
                customer: "dee".into(),
                total_cents: 100,
                orders: 1
            },
        ]
    );
    let sent = m.monitor.named("aggregate");
    assert_eq!(sent.len(), 1);
    let command = &sent[0].command;
    assert_eq!(command.get_str("aggregate").unwrap(), "orders");
    let pipeline: Vec<Bson> = command.get_array("pipeline").unwrap().clone();
    assert_eq!(
        pipeline,
        vec![
            Bson::Document(doc! { "$match": { "totalCents": { "$gte": 100 } } }),
            Bson::Document(doc! { "$match": { "status": "PAID" } }),
            Bson::Document(group_by_customer()),
            Bson::Document(doc! { "$sort": { "totalCents": -1 } }),
            Bson::Document(doc! { "$skip": 1_i64 }),
            Bson::Document(doc! { "$limit": 2_i64 }),
        ]
    );
    assert_eq!(command.get_bool("allowDiskUse").ok(), Some(true));
    assert_eq!(
        command.get_document("cursor").unwrap(),
        &doc! { "batchSize": 10 }
    );
    assert!(matches!(
        command.get("maxTimeMS"),
        Some(Bson::Int32(5000) | Bson::Int64(5000))
    ));
    assert_eq!(command.get_str("comment").ok(), Some("spend report"));
    m.finish().await;
}

#[tokio::test]
async fn untyped_results_are_documents_and_projections_decode_into_their_type() {
    let (m, orders) = seeded("agg-kinds").await;
    let f = Order::fields();
    let docs = orders
        .aggregate([])
        .filter(f.customer().eq("bob"))
        .sort(f.id().asc())
        .project(doc! { "_id": 0, "totalCents": 1 })
        .await
        .unwrap();
    assert_eq!(
        docs,
        vec![
            doc! { "totalCents": 500_i64 },
            doc! { "totalCents": 700_i64 }
        ]
    );

    m.monitor.clear();
    let lines: Vec<OrderLine> = orders
        .aggregate([])
        .filter(f.status().eq("OPEN"))
        .projection::<OrderLine>()
        .await
        .unwrap();
    assert_eq!(
        lines,
        vec![OrderLine {
            customer: "cid".into(),
            total_cents: 9999
        }]
    );
    let pipeline = m.monitor.named("aggregate")[0]
        .command
        .get_array("pipeline")
        .unwrap()
        .clone();
    assert_eq!(
        pipeline[1],
        Bson::Document(doc! { "$project": { "customer": 1, "totalCents": 1 } })
    );

    // The model's own type, from stored documents (the version key too).
    let whole: Vec<Order> = orders
        .aggregate([])
        .sort(f.total_cents().desc())
        .limit(1)
        .with_type::<Order>()
        .await
        .unwrap();
    assert_eq!(whole, vec![order(4, "cid", "OPEN", 9999)]);
    m.finish().await;
}

#[tokio::test]
async fn hint_and_collation_reach_the_server() {
    let (m, orders) = seeded("agg-options").await;
    let case_insensitive = Collation::builder()
        .locale("en")
        .strength(CollationStrength::Secondary)
        .build();
    let anns: Vec<Order> = orders
        .aggregate([])
        .filter(doc! { "customer": "ANN" })
        .sort(doc! { "_id": 1 })
        .collation(case_insensitive)
        .hint(Hint::Name("customer_1".into()))
        .with_type::<Order>()
        .await
        .unwrap();
    assert_eq!(anns.iter().map(|o| o.id).collect::<Vec<_>>(), vec![1, 3, 7]);
    let command = &m.monitor.named("aggregate")[0].command;
    assert_eq!(command.get_str("hint").ok(), Some("customer_1"));
    assert_eq!(
        command
            .get_document("collation")
            .unwrap()
            .get_str("locale")
            .ok(),
        Some("en")
    );
    let refused = orders
        .aggregate([])
        .hint(Hint::Name("no_such_index".into()))
        .await
        .unwrap_err();
    assert!(matches!(refused, Error::Driver(_)), "{refused:?}");
    m.finish().await;
}

#[tokio::test]
async fn a_result_that_does_not_fit_names_its_id_and_field_and_the_stream_goes_on() {
    let (m, orders) = seeded("agg-bad").await;
    let f = Order::fields();
    // One customer's total is stored as text: its row cannot be a `Spend`.
    orders
        .collection()
        .update_one(doc! { "_id": 6 }, doc! { "$set": { "totalCents": "lots" } })
        .await
        .unwrap();
    let pipeline = || {
        orders
            .aggregate([])
            .filter(f.status().eq("PAID"))
            .stage(doc! { "$group": {
                "_id": "$customer",
                "totalCents": { "$first": "$totalCents" },
                "orders": { "$sum": 1 },
            } })
            .sort(doc! { "_id": 1 })
            .with_type::<Spend>()
    };
    let e = pipeline().await.unwrap_err();
    let Error::Deserialize(d) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(
        (d.id.clone(), d.path.as_str()),
        (Bson::String("dee".into()), "totalCents")
    );
    assert!(!e.to_string().contains("lots"), "{e}");

    let items: Vec<Result<Spend, odm::Error>> = pipeline()
        .batch_size(2)
        .stream()
        .await
        .unwrap()
        .collect()
        .await;
    let customers: Vec<String> = items
        .iter()
        .map(|r| match r {
            Ok(s) => s.customer.clone(),
            Err(_) => "(error)".into(),
        })
        .collect();
    assert_eq!(customers, vec!["Ann", "ann", "bob", "(error)"]);
    // Batches of 2: the first with the aggregate, the rest by getMore.
    let opened = &m.monitor.named("aggregate")[1].command;
    assert_eq!(
        opened.get_document("cursor").unwrap(),
        &doc! { "batchSize": 2 }
    );
    assert!(m.monitor.started("getMore") >= 1);
    m.finish().await;
}

#[tokio::test]
async fn inside_a_transaction_it_sees_the_transactions_own_writes() {
    let (m, orders) = seeded("agg-session").await;
    let f = Order::fields();
    let mut session = m.client().start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    orders
        .create(order(8, "eve", "PAID", 4200))
        .session(&mut session)
        .await
        .unwrap();
    let count_eve = |rows: Vec<BsonDocument>| rows.len();
    let inside = orders
        .aggregate([])
        .filter(f.customer().eq("eve"))
        .session(&mut session)
        .await
        .unwrap();
    let outside = orders
        .aggregate([])
        .filter(f.customer().eq("eve"))
        .await
        .unwrap();
    assert_eq!((count_eve(inside), count_eve(outside)), (1, 0));
    let mut streamed = orders
        .aggregate([])
        .filter(f.customer().eq("eve"))
        .with_type::<Order>()
        .session(&mut session)
        .stream()
        .await
        .unwrap();
    assert_eq!(streamed.try_next().await.unwrap().map(|o| o.id), Some(8));
    drop(streamed);
    session.abort_transaction().await.unwrap();
    let lsid = session.id().clone();
    let sent = m.monitor.named("aggregate");
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[0].command.get_document("lsid").unwrap(), &lsid);
    assert!(sent[0].command.contains_key("txnNumber"));
    assert_ne!(sent[1].command.get_document("lsid").ok(), Some(&lsid));
    assert_eq!(sent[2].command.get_document("lsid").unwrap(), &lsid);
    assert_eq!(orders.count(doc! { "customer": "eve" }).await.unwrap(), 0);
    // The client's shutdown waits for every session to end.
    drop(session);
    m.finish().await;
}
