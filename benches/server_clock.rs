//! The cost of `#[odm(timestamps(server_clock))]`: a `save()` that stamps
//! `updatedAt` from the server's clock (one `hello` round trip before the
//! update) against the same save stamping from the application's clock,
//! and against a save without timestamps, on the same server, alternating
//! op by op in one run.
//!
//! `cargo bench --bench server_clock` runs against the local SecantusDB
//! server (or `MONGODB_URI`): `ODM_CLOCK_ROUNDS` (default 5) rounds of
//! `ODM_CLOCK_OPS` (default 200) saves per side. Prints per-op times and
//! `CLOCK ratio server_clock/client R` and `CLOCK ratio client/none R`
//! (total times). `ODM_BENCH_QUICK=1`: one round of 4 ops per side, with
//! every assertion (what CI runs); the ratios then mean little.

mod common;

use std::time::{Duration, Instant};

use common::env_usize;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "plain", optimistic_concurrency)]
struct Plain {
    #[serde(rename = "_id")]
    id: i64,
    counter: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "client_clock", optimistic_concurrency, timestamps)]
#[serde(rename_all = "camelCase")]
struct ClientClock {
    #[serde(rename = "_id")]
    id: i64,
    counter: i32,
    created_at: Option<odm::bson::DateTime>,
    updated_at: Option<odm::bson::DateTime>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "server_clock",
    optimistic_concurrency,
    timestamps(server_clock)
)]
#[serde(rename_all = "camelCase")]
struct ServerClock {
    #[serde(rename = "_id")]
    id: i64,
    counter: i32,
    created_at: Option<odm::bson::DateTime>,
    updated_at: Option<odm::bson::DateTime>,
}

/// One side: a stored `Doc` whose counter each op sets and saves.
trait Side: Document + Clone + PartialEq {
    fn new(id: i64) -> Self;
    fn set(&mut self, n: i32);
}

impl Side for Plain {
    fn new(id: i64) -> Self {
        Plain { id, counter: 0 }
    }
    fn set(&mut self, n: i32) {
        self.counter = n;
    }
}

macro_rules! stamped_side {
    ($t:ident) => {
        impl Side for $t {
            fn new(id: i64) -> Self {
                $t {
                    id,
                    counter: 0,
                    created_at: None,
                    updated_at: None,
                }
            }
            fn set(&mut self, n: i32) {
                self.counter = n;
            }
        }
    };
}
stamped_side!(ClientClock);
stamped_side!(ServerClock);

async fn stored<T: Side>(db: &mongodb::Database) -> Doc<T> {
    let model = T::model(db);
    model.create(T::new(1)).await.unwrap();
    model.find_by_id(1).await.unwrap().unwrap()
}

async fn save<T: Side>(doc: &mut Doc<T>, n: i32) -> Duration {
    let start = Instant::now();
    doc.set(n);
    doc.save().await.unwrap();
    start.elapsed()
}

#[tokio::main]
async fn main() {
    let quick = common::quick();
    let rounds = env_usize("ODM_CLOCK_ROUNDS", if quick { 1 } else { 5 });
    let ops = env_usize("ODM_CLOCK_OPS", if quick { 4 } else { 200 });
    let t = TestDb::new().await;
    let mut plain = stored::<Plain>(&t.db).await;
    let mut client = stored::<ClientClock>(&t.db).await;
    let mut server = stored::<ServerClock>(&t.db).await;
    let mut times = [Duration::ZERO; 3];
    let mut n = 0;
    // Warm-up, not counted.
    for _ in 0..ops / 4 {
        n += 1;
        save(&mut plain, n).await;
        save(&mut client, n).await;
        save(&mut server, n).await;
    }
    for _ in 0..rounds {
        for i in 0..ops {
            n += 1;
            // Each side first in turn, so bursts of other load fall alike.
            for k in 0..3 {
                match (i + k) % 3 {
                    0 => times[0] += save(&mut plain, n).await,
                    1 => times[1] += save(&mut client, n).await,
                    _ => times[2] += save(&mut server, n).await,
                }
            }
        }
    }
    // The server's stamp is what the Doc holds and the store keeps.
    let stored_server = ServerClock::model(&t.db)
        .find_by_id(1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored_server.updated_at, server.updated_at);
    assert!(server.updated_at.is_some() && client.updated_at.is_some());
    let per_op = |d: Duration| d.as_secs_f64() * 1e6 / (rounds * ops) as f64;
    println!(
        "save(): no timestamps {:.1} us/op, timestamps {:.1} us/op, timestamps(server_clock) {:.1} us/op, {} ops each",
        per_op(times[0]),
        per_op(times[1]),
        per_op(times[2]),
        rounds * ops
    );
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "CLOCK ratio server_clock/client {:.2}",
        ratio(times[2], times[1])
    );
    println!("CLOCK ratio client/none {:.2}", ratio(times[1], times[0]));
    println!(
        "CLOCK ratio server_clock/none {:.2}",
        ratio(times[2], times[0])
    );
    drop((plain, client, server));
    t.finish().await;
}
