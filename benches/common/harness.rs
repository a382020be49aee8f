//! The `shapes` bench's measuring loop: runs, their CPU and wall-clock
//! time, the quick mode, and the printed tables.

use std::time::{Duration, Instant};

use super::quick;

/// Runs per row for a row whose one op takes longer than a run: each run
/// is then one op, and a few of them are enough.
const SLOW_RUNS: usize = 3;

/// Ops in the one run of each row in quick mode.
const QUICK_OPS: u64 = 3;

/// How long and how often each row is measured.
pub struct Plan {
    /// `ODM_BENCH_QUICK=1`: one warm-up op and one run of `QUICK_OPS` ops
    /// per row, small documents for the growth rows.
    pub quick: bool,
    pub runs: usize,
    pub min_run: Duration,
    filters: Vec<String>,
}

impl Plan {
    pub fn from_env() -> Plan {
        let runs = super::env_usize("ODM_BENCH_RUNS", 5);
        let secs: f64 = std::env::var("ODM_BENCH_SECS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1.0);
        // cargo bench passes `--bench`; other flags are ignored too.
        let filters = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .collect();
        let quick = quick();
        Plan {
            quick,
            runs: if quick { 1 } else { runs },
            min_run: if quick {
                Duration::ZERO
            } else {
                Duration::from_secs_f64(secs)
            },
            filters,
        }
    }

    pub fn wants(&self, name: &str) -> bool {
        self.filters.iter().all(|f| name.contains(f.as_str()))
    }
}

/// One measured row.
pub struct Row {
    pub shape: &'static str,
    pub row: &'static str,
    /// Wall-clock ns/op of each run, sorted.
    wall: Vec<f64>,
    /// CPU ns/op of each run, sorted (empty if unavailable).
    cpu: Vec<f64>,
}

/// The median of sorted values (NaN when empty).
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

impl Row {
    /// The reported figure: median CPU ns/op, or wall-clock without it.
    pub fn ns(&self) -> f64 {
        if self.cpu.is_empty() {
            median(&self.wall)
        } else {
            median(&self.cpu)
        }
    }
}

/// A row's median wall-clock ns/op (server time included, for the rows
/// that compare round trips).
pub fn median_wall(row: &Row) -> f64 {
    median(&row.wall)
}

/// CPU time this thread has run, in ns (Linux; `None` elsewhere). The
/// machine may be shared: time spent waiting for a core is not the code's.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// ns per call of one run, by the wall clock and by this thread's CPU time.
#[derive(Clone, Copy)]
struct Sample {
    wall: f64,
    cpu: Option<f64>,
}

/// Runs `op(i)` with i = 0, 1, 2, ... in batches until `min_run` has passed
/// (at least one batch).
fn one_run(min_run: Duration, batch: u64, next: &mut u64, op: &mut impl FnMut(u64)) -> Sample {
    let cpu_start = thread_cpu_ns();
    let start = Instant::now();
    let mut done = 0u64;
    loop {
        for _ in 0..batch {
            op(*next);
            *next += 1;
        }
        done += batch;
        let elapsed = start.elapsed();
        if elapsed >= min_run {
            let cpu = match (cpu_start, thread_cpu_ns()) {
                (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 / done as f64),
                _ => None,
            };
            return Sample {
                wall: elapsed.as_nanos() as f64 / done as f64,
                cpu,
            };
        }
    }
}

/// Measures `op` as row `row` of `shape`, if the filters want it.
///
/// A 200 ms warm-up (at least one op) sizes the batches so the clock is
/// read every ~10 ms. A row whose one op takes longer than a run gets
/// `SLOW_RUNS` runs of one op each. Quick mode: one warm-up op, then one
/// run of `QUICK_OPS` ops.
pub fn measure(
    plan: &Plan,
    out: &mut Vec<Row>,
    shape: &'static str,
    row: &'static str,
    mut op: impl FnMut(u64),
) {
    if !plan.wants(&format!("{shape} {row}")) {
        return;
    }
    let mut next = 0u64;
    let warm_up = if plan.quick {
        Duration::ZERO
    } else {
        Duration::from_millis(200)
    };
    let warm = one_run(warm_up, 1, &mut next, &mut op);
    let warm_ops = next;
    let (runs, batch) = if plan.quick {
        (1, QUICK_OPS)
    } else if warm.wall >= plan.min_run.as_nanos() as f64 {
        (plan.runs.min(SLOW_RUNS), 1)
    } else {
        (plan.runs, ((10_000_000.0 / warm.wall) as u64).max(1))
    };
    let samples: Vec<Sample> = (0..runs)
        .map(|_| one_run(plan.min_run, batch, &mut next, &mut op))
        .collect();
    let mut wall: Vec<f64> = samples.iter().map(|s| s.wall).collect();
    let mut cpu: Vec<f64> = samples.iter().filter_map(|s| s.cpu).collect();
    // The thread's CPU time is only as fine as the scheduler's accounting:
    // a quick run of a few short ops may read as 0.
    if cpu.len() != wall.len() || plan.quick {
        cpu.clear();
    }
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let r = Row {
        shape,
        row,
        wall,
        cpu,
    };
    eprintln!(
        "  {shape:<2} {row:<18} {:>12.0} ns/op cpu, {:>12.0} wall ({runs} runs, {} ops)",
        r.ns(),
        median(&r.wall),
        next - warm_ops,
    );
    out.push(r);
}

/// A growth row: the same mutation measured at `n` and `4 * n` elements,
/// as shapes `N` and `4N`.
pub struct Growth {
    pub row: &'static str,
    /// What `n` counts ("keys", "elements", ...).
    pub unit: &'static str,
    pub n: usize,
}

/// Prints the table of all rows, the growth table, then one line per row:
/// `SHAPE ROW NS`, and `GROWTH ROW RATIO` per growth row.
pub fn print(rows: &[Row], sizes: &[(&str, usize)], growth: &[Growth]) {
    println!();
    for (shape, size) in sizes
        .iter()
        .filter(|(s, _)| rows.iter().any(|r| r.shape == *s))
    {
        println!("shape {shape}: {size} bytes of stored BSON");
    }
    println!();
    println!("| shape | row | CPU ns/op (median) | min | max | wall ns/op (median) |");
    println!("|---|---|---:|---:|---:|---:|");
    for r in rows {
        let (min, max) = match r.cpu.as_slice() {
            [] => (f64::NAN, f64::NAN),
            cpu => (cpu[0], cpu[cpu.len() - 1]),
        };
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.0} | {:.0} |",
            r.shape,
            r.row,
            r.ns(),
            min,
            max,
            median(&r.wall)
        );
    }
    let find = |shape: &str, row: &str| {
        rows.iter()
            .find(|r| r.shape == shape && r.row == row)
            .map(Row::ns)
    };
    let mut ratios = Vec::new();
    for g in growth {
        if let (Some(small), Some(large)) = (find("N", g.row), find("4N", g.row)) {
            ratios.push((g, small, large, large / small));
        }
    }
    if !ratios.is_empty() {
        println!();
        println!("Growth: 4N / N is ~4 when the cost is linear, ~16 when quadratic.");
        println!();
        println!("| row | N | CPU ns/op at N | 4N | CPU ns/op at 4N | 4N / N |");
        println!("|---|---:|---:|---:|---:|---:|");
        for (g, small, large, ratio) in &ratios {
            println!(
                "| {} | {} {} | {small:.0} | {} | {large:.0} | {ratio:.1} |",
                g.row,
                g.n,
                g.unit,
                4 * g.n,
            );
        }
    }
    println!();
    for r in rows {
        println!("{} {} {:.0}", r.shape, r.row, r.ns());
    }
    for (g, _, _, ratio) in &ratios {
        println!("GROWTH {} {ratio:.2}", g.row);
    }
}
