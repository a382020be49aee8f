//! 6. A lock holder stalls (a GC pause, a slow disk) past its lease; the
//!    next holder takes the lease and writes; then the stalled one wakes
//!    and writes what it computed before the stall.

use std::time::Duration;

use odm::lock::Leases;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{join, timed, Ctx, Measure, Scenario};

pub const SCENARIO: Scenario = Scenario {
    title: "a stalled lock holder",
    unit: "stale overwrites",
    per: "reports",
    naive: "lease, plain save",
    odm: &["lease + save().fenced()"],
};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "reports")]
pub struct Report {
    #[serde(rename = "_id")]
    pub id: i64,
    pub writer: String,
}

const TTL: Duration = Duration::from_millis(50);
const STALL: Duration = Duration::from_millis(150);

pub async fn round(ctx: &Ctx, round: usize) -> odm::Result<Vec<Measure>> {
    let documents = ctx.size.n;
    let reports = Report::model(&ctx.db);
    let leases = Leases::new(&ctx.db, "locks");
    let mut measures = Vec::new();
    for fenced in [false, true] {
        let first = (round as i64 * 2 + i64::from(fenced)) * 1000;
        let ids: Vec<i64> = (first..first + documents as i64).collect();
        for &id in &ids {
            let writer = "nobody".into();
            reports.create(Report { id, writer }).await?;
        }
        let measure = timed(async {
            let tasks = ids
                .iter()
                .map(|&id| {
                    let (reports, leases) = (reports.clone(), leases.clone());
                    tokio::spawn(async move { race(&reports, &leases, id, fenced).await })
                })
                .collect();
            join(tasks).await?;
            // The last holder wrote "next"; anything else overwrote it.
            let stale = reports
                .count(doc! { "_id": { "$in": &ids }, "writer": { "$ne": "next" } })
                .await?;
            Ok((stale, documents as u64))
        })
        .await?;
        measures.push(measure);
    }
    Ok(measures)
}

/// The stalled holder and the next one, on one report.
async fn race(reports: &Model<Report>, leases: &Leases, id: i64, fenced: bool) -> Result<()> {
    let key = format!("report:{id}");
    let stalled = leases.acquire(key.clone(), TTL).await?;
    let mut late = reports.find_by_id(id).await?.expect("stored");

    let next = {
        let (reports, leases) = (reports.clone(), leases.clone());
        tokio::spawn(async move {
            // Waits until the stalled holder's lease expires.
            let lease = leases.acquire(key, Duration::from_secs(10)).await?;
            let mut report = reports.find_by_id(id).await?.expect("stored");
            report.writer = "next".into();
            if fenced {
                report.save().fenced(&lease).await?;
            } else {
                report.save().await?;
            }
            lease.release().await
        })
    };

    tokio::time::sleep(STALL).await; // the stall
    late.writer = "stalled".into();
    let written = if fenced {
        late.save().fenced(&stalled).await
    } else {
        late.save().await
    };
    match written {
        // Refused: a newer token wrote the report first.
        Ok(()) | Err(Error::Fenced(_)) => {}
        Err(e) => return Err(e),
    }
    // The lease expired during the stall: its release reports it lost.
    match stalled.release().await {
        Ok(()) | Err(Error::LeaseLost(_)) => {}
        Err(e) => return Err(e),
    }
    next.await.expect("a demo task panicked")
}
