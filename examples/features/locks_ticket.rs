//! "One free ticket per user": a check-then-insert that races when a user
//! clicks many times at once. Fixed with a `KeyedMutex` per user on one
//! instance, and with a lease per user across instances.

use std::time::Duration;

use odm::lock::{KeyedMutex, Leases};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(
    collection = "orders",
    index(keys(event = 1, user = 1), name = "by_event_user")
)]
pub struct Order {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub event: i64,
    pub user: String,
}

/// The naive rule: find an order, create one if there is none.
async fn participate(orders: &Model<Order>, user: &str, event: i64) -> odm::Result<bool> {
    if orders
        .find_one(doc! { "event": event, "user": user })
        .await?
        .is_some()
    {
        return Ok(false);
    }
    orders
        .create(Order {
            id: ObjectId::new(),
            event,
            user: user.to_string(),
        })
        .await?;
    Ok(true)
}

/// Ten clicks at once; how many tickets the user got.
async fn clicks<F, Fut>(orders: &Model<Order>, event: i64, click: F) -> odm::Result<u64>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = odm::Result<bool>> + Send + 'static,
{
    let tasks: Vec<_> = (0..10).map(|_| tokio::spawn(click())).collect();
    for task in tasks {
        task.await.expect("task")?;
    }
    orders.count(doc! { "event": event }).await
}

/// What the run saw.
#[derive(Debug)]
pub struct Outcome {
    /// Tickets of ten simultaneous clicks without a lock.
    pub naive: u64,
    /// ... with a `KeyedMutex` per user.
    pub mutex: u64,
    /// Entries left in the mutex afterwards.
    pub mutex_entries: usize,
    /// ... with a lease per user, each click its own client.
    pub leases: u64,
    /// The token of the lease taken after the ten clicks.
    pub next_token: i64,
}

/// Ten clicks by one user, three ways.
pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let orders = Order::model(db);
    orders.sync_indexes().await?;

    // 1. The race: every click finds no order, every click creates one.
    let naive = clicks(&orders, 1, || {
        let orders = orders.clone();
        async move { participate(&orders, "ann", 1).await }
    })
    .await?;
    println!("1. no lock: ann clicked 10 times and got {naive} ticket(s)");

    // 2. One instance: a mutex per user, FIFO, that leaves no entry behind.
    let mutex: KeyedMutex<String> = KeyedMutex::new();
    let one = clicks(&orders, 2, || {
        let (orders, mutex) = (orders.clone(), mutex.clone());
        async move {
            let _guard = mutex.lock("ann".to_string()).await;
            participate(&orders, "ann", 2).await
        }
    })
    .await?;
    println!(
        "2. KeyedMutex: {one} ticket; entries left in the mutex: {}",
        mutex.len()
    );

    // 3. Many instances: a lease per user in MongoDB. Each click here acts
    //    as another instance with its own client.
    let name = db.name().to_string();
    let many = clicks(&orders, 3, || {
        let name = name.clone();
        async move {
            let client = odm_testing::client().await;
            let db = client.database(&name);
            let leases = Leases::new(&db, "locks");
            let lease = leases
                .acquire("ticket:ann", Duration::from_secs(10))
                .await?;
            let created = participate(&Order::model(&db), "ann", 3).await?;
            lease.release().await?;
            client.shutdown().await;
            Ok(created)
        }
    })
    .await?;
    println!("3. Leases across instances: {many} ticket");
    let leases = Leases::new(db, "locks");
    let next = leases
        .acquire("ticket:ann", Duration::from_secs(10))
        .await?;
    println!(
        "   the lease was granted {} times: tokens only grow",
        next.token()
    );
    let next_token = next.token();
    next.release().await?;
    Ok(Outcome {
        naive,
        mutex: one,
        mutex_entries: mutex.len(),
        leases: many,
        next_token,
    })
}
