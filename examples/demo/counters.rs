//! 5. Counters incremented by many tasks at once: read, add one, write.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{join, pause, timed, Ctx, Measure, Scenario};

pub const SCENARIO: Scenario = Scenario {
    title: "concurrent counters",
    unit: "lost updates",
    per: "increments",
    naive: "read-modify-write",
    odm: &["update_with_retry"],
};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "counters")]
pub struct Counter {
    #[serde(rename = "_id")]
    pub id: i64,
    pub value: i64,
}

const TASKS_PER_COUNTER: usize = 4;
const INCREMENTS: usize = 5;

pub async fn round(ctx: &Ctx, round: usize) -> odm::Result<Vec<Measure>> {
    let counters_per_round = ctx.size.n;
    let model = Counter::model(&ctx.db);
    let mut measures = Vec::new();
    for naive in [true, false] {
        let first = (round as i64 * 2 + i64::from(!naive)) * 1000;
        let ids: Vec<i64> = (first..first + counters_per_round as i64).collect();
        for &id in &ids {
            model.create(Counter { id, value: 0 }).await?;
        }
        let measure = timed(async {
            let tasks = (0..counters_per_round * TASKS_PER_COUNTER)
                .map(|t| {
                    let (model, id) = (model.clone(), ids[t % counters_per_round]);
                    tokio::spawn(async move {
                        for i in 0..INCREMENTS {
                            if naive {
                                let mut counter = model.find_by_id(id).await?.expect("stored");
                                pause(t + i).await;
                                counter.value += 1;
                                counter.save().await?;
                            } else {
                                // Loads, adds one, saves with a version check;
                                // on a conflict loads again and adds one again.
                                model
                                    .update_with_retry(id, 100, |c: &mut Counter| {
                                        c.value += 1;
                                        Ok(())
                                    })
                                    .await?;
                            }
                        }
                        Ok(())
                    })
                })
                .collect();
            join(tasks).await?;
            let expected = (counters_per_round * TASKS_PER_COUNTER * INCREMENTS) as i64;
            let mut total = 0;
            for counter in model.find(doc! { "_id": { "$in": &ids } }).await? {
                total += counter.value;
            }
            Ok((expected.abs_diff(total), expected as u64))
        })
        .await?;
        measures.push(measure);
    }
    Ok(measures)
}
