//! A change feed that survives a restart: a worker follows the orders
//! that get paid (`model.watch()` with a model filter), keeps its resume
//! token in a collection after each event, is stopped, and a new worker
//! goes on from the stored token: no payment is missed, none is seen
//! twice. A token from another tenant's collection is refused.

use std::time::Duration;

use futures_util::StreamExt;
use odm::prelude::*;
use odm::watch::{ChangeStream, OperationType, ResumeToken};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "orders")]
pub struct Order {
    #[serde(rename = "_id")]
    pub id: i64,
    pub customer: String,
    pub status: String,
}

/// Where a worker keeps its place: the token of the last event it handled
/// (stored by serde, as any field).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Checkpoint {
    #[serde(rename = "_id")]
    pub id: String,
    pub token: ResumeToken,
}

/// What happened, for tests/examples_run.rs.
#[derive(Debug)]
pub struct Outcome {
    /// Orders the first worker saw paid, before it stopped.
    pub first_worker: Vec<i64>,
    /// Orders the second worker saw, resuming from the stored token.
    pub second_worker: Vec<i64>,
    /// A token of `orders` refused on another tenant's collection.
    pub foreign_token_refused: bool,
}

/// The next paid order of `feed`, and its token stored in `checkpoints`.
async fn next_paid(
    feed: &mut ChangeStream<Order>,
    checkpoints: &mongodb::Collection<Checkpoint>,
) -> odm::Result<i64> {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(10), feed.next())
            .await
            .expect("an event within 10 s")
            .expect("the feed is open")?;
        let checkpoint = Checkpoint {
            id: "paid-orders".into(),
            token: event.resume_token().clone(),
        };
        checkpoints
            .replace_one(doc! { "_id": "paid-orders" }, checkpoint)
            .upsert(true)
            .await?;
        if event.operation_type == OperationType::Update {
            let order = event.full_document.expect("looked up");
            println!("  paid: order {} of {}", order.id, order.customer);
            return Ok(order.id);
        }
    }
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let orders = Order::model(db);
    let checkpoints = db.collection::<Checkpoint>("checkpoints");
    for (id, customer) in [(1, "ann"), (2, "bob"), (3, "cid")] {
        let status = "OPEN".to_string();
        orders
            .create(Order {
                id,
                customer: customer.into(),
                status,
            })
            .await?;
    }

    println!("worker 1 follows paid orders");
    let mut feed = orders
        .watch()
        .filter(doc! { "status": "PAID" })
        .max_await_time(Duration::from_millis(200))
        .await?;
    let pay = |id: i64| {
        let orders = orders.clone();
        async move {
            let mut order = orders.find_by_id(id).await?.expect("stored");
            order.status = "PAID".into();
            order.save().await
        }
    };
    pay(1).await?;
    let first_worker = vec![next_paid(&mut feed, &checkpoints).await?];
    drop(feed);
    println!("worker 1 stopped; orders 2 and 3 are paid meanwhile");
    pay(2).await?;
    pay(3).await?;

    let token = checkpoints
        .find_one(doc! { "_id": "paid-orders" })
        .await?
        .expect("a checkpoint")
        .token;

    println!("worker 2 resumes from the stored token");
    let mut feed = orders
        .watch()
        .filter(doc! { "status": "PAID" })
        .resume_after(token.clone())
        .max_await_time(Duration::from_millis(200))
        .await?;
    let second_worker = vec![
        next_paid(&mut feed, &checkpoints).await?,
        next_paid(&mut feed, &checkpoints).await?,
    ];
    drop(feed);

    let tenant = Model::<Order>::with_collection(db, "tenant_7_orders");
    let foreign = tenant.watch().resume_after(token).await;
    let foreign_token_refused = matches!(&foreign, Err(Error::Watch(_)));
    if let Err(e) = &foreign {
        println!("a token of orders on tenant_7_orders: {e}");
    }
    drop(foreign);
    Ok(Outcome {
        first_worker,
        second_worker,
        foreign_token_refused,
    })
}
