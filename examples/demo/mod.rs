//! The demo's scenarios, shared by `examples/demo.rs` and
//! `tests/demo_runs.rs`: each race run by the code people write first
//! ("naive") and by odm, with many tasks at once, over several rounds.

use std::fmt::Write as _;
use std::future::Future;
use std::time::{Duration, Instant};

use mongodb::{Client, Database};
use tokio::task::JoinHandle;

mod claims;
mod counters;
mod first_request;
mod stale_copies;
mod stalled_holder;
mod tickets;

/// How much work each scenario does.
#[derive(Debug, Clone, Copy)]
pub struct Size {
    /// Rounds per scenario.
    pub rounds: usize,
    /// The fan-out of a round (users, jobs, counters...).
    pub n: usize,
}

impl Size {
    /// A few seconds, for CI and tests.
    pub fn quick() -> Size {
        Size { rounds: 2, n: 4 }
    }

    /// Sized for a person watching.
    pub fn full() -> Size {
        Size { rounds: 4, n: 10 }
    }
}

/// One scenario: what it counts and the approaches it compares.
pub struct Scenario {
    /// Its title in the table.
    pub title: &'static str,
    /// What an anomaly is, plural ("duplicates").
    pub unit: &'static str,
    /// What the anomalies are counted against, plural ("new users").
    pub per: &'static str,
    /// The naive code, in a few words.
    pub naive: &'static str,
    /// odm's ways, in a few words each.
    pub odm: &'static [&'static str],
}

/// The six scenarios, in order.
pub const SCENARIOS: [&Scenario; 6] = [
    &first_request::SCENARIO,
    &claims::SCENARIO,
    &tickets::SCENARIO,
    &stale_copies::SCENARIO,
    &counters::SCENARIO,
    &stalled_holder::SCENARIO,
];

/// The anomalies one approach produced in one round, and its time.
#[derive(Debug, Clone, Copy, Default)]
pub struct Measure {
    /// Duplicates, double runs, lost updates, invalid states...
    pub anomalies: u64,
    /// Out of how many (users, jobs, increments...).
    pub of: u64,
    /// Wall time of the approach.
    pub time: Duration,
}

impl Measure {
    fn add(&mut self, other: Measure) {
        self.anomalies += other.anomalies;
        self.of += other.of;
        self.time += other.time;
    }
}

/// A scenario's totals over all rounds: the naive code first, then odm's.
pub struct Report {
    /// The scenario.
    pub scenario: &'static Scenario,
    /// The naive code's totals.
    pub naive: Measure,
    /// odm's totals, one per way in `scenario.odm`.
    pub odm: Vec<Measure>,
}

impl Report {
    /// Every odm way produced no anomaly.
    pub fn ok(&self) -> bool {
        self.odm.iter().all(|m| m.anomalies == 0)
    }
}

/// What a scenario round works with.
pub struct Ctx {
    /// The database of the run.
    pub db: Database,
    /// The same database through separate clients: service instances.
    pub instances: Vec<Database>,
    clients: Vec<Client>,
    /// The size of the run.
    pub size: Size,
}

/// How the naive code is made to race; printed before the run.
pub const HONESTY: &str = "Read-then-write code (naive, and odm's own read-modify-write) waits \
1-3 ms between its read and its write, as a request doing other work would: this widens \
the race window, it does not create it. Each round runs its tasks at once (tokio::spawn).";

/// Runs every scenario for `size.rounds` rounds against `db`, printing a
/// line per scenario round, and returns the totals.
pub async fn run(db: &Database, size: Size) -> odm::Result<Vec<Report>> {
    let mut clients = Vec::new();
    for _ in 0..3 {
        clients.push(odm_testing::client().await);
    }
    let ctx = Ctx {
        db: db.clone(),
        instances: clients.iter().map(|c| c.database(db.name())).collect(),
        clients,
        size,
    };
    let mut reports = Vec::new();
    for (i, scenario) in SCENARIOS.iter().enumerate() {
        let mut report = Report {
            scenario,
            naive: Measure::default(),
            odm: vec![Measure::default(); scenario.odm.len()],
        };
        for round in 0..size.rounds {
            let measures = match i {
                0 => first_request::round(&ctx, round).await?,
                1 => claims::round(&ctx, round).await?,
                2 => tickets::round(&ctx, round).await?,
                3 => stale_copies::round(&ctx, round).await?,
                4 => counters::round(&ctx, round).await?,
                _ => stalled_holder::round(&ctx, round).await?,
            };
            println!("{}", progress(i, scenario, round, size.rounds, &measures));
            report.naive.add(measures[0]);
            for (total, m) in report.odm.iter_mut().zip(&measures[1..]) {
                total.add(*m);
            }
        }
        reports.push(report);
    }
    for client in ctx.clients {
        client.shutdown().await;
    }
    Ok(reports)
}

fn progress(i: usize, s: &Scenario, round: usize, rounds: usize, m: &[Measure]) -> String {
    let mut line = format!(
        "[{}/6] {}, round {}/{}: naive {} {}",
        i + 1,
        s.title,
        round + 1,
        rounds,
        m[0].anomalies,
        s.unit
    );
    for (how, m) in s.odm.iter().zip(&m[1..]) {
        let _ = write!(line, "; {how} {}", m.anomalies);
    }
    line
}

/// The table of the run, one line per odm way.
pub fn table(reports: &[Report]) -> String {
    let mut rows = vec![[
        "scenario".to_string(),
        "out of".to_string(),
        "naive code".to_string(),
        "odm".to_string(),
        "".to_string(),
        "time naive / odm".to_string(),
    ]];
    for (i, r) in reports.iter().enumerate() {
        let s = r.scenario;
        for (j, (how, m)) in s.odm.iter().zip(&r.odm).enumerate() {
            let (title, of, naive) = if j == 0 {
                (
                    format!("{} {}", i + 1, s.title),
                    format!("{} {}", r.naive.of, s.per),
                    format!("{}: {} {}", s.naive, r.naive.anomalies, s.unit),
                )
            } else {
                (String::new(), String::new(), String::new())
            };
            rows.push([
                title,
                of,
                naive,
                format!("{how}: {}", m.anomalies),
                if m.anomalies == 0 { "ok" } else { "WRONG" }.to_string(),
                format!("{} / {}", secs(r.naive.time), secs(m.time)),
            ]);
        }
    }
    let widths: Vec<usize> = (0..6)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

/// The pause between a read and the write that depends on it.
pub async fn pause(i: usize) {
    tokio::time::sleep(Duration::from_millis(1 + (i % 3) as u64)).await;
}

/// Awaits every task, returning the first error.
pub async fn join<T>(tasks: Vec<JoinHandle<odm::Result<T>>>) -> odm::Result<Vec<T>> {
    let mut out = Vec::with_capacity(tasks.len());
    for task in tasks {
        out.push(task.await.expect("a demo task panicked")?);
    }
    Ok(out)
}

/// Times `work`, which returns the anomalies and out of how many.
pub async fn timed<F>(work: F) -> odm::Result<Measure>
where
    F: Future<Output = odm::Result<(u64, u64)>>,
{
    let start = Instant::now();
    let (anomalies, of) = work.await?;
    Ok(Measure {
        anomalies,
        of,
        time: start.elapsed(),
    })
}
