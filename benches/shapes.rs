//! CPU cost of odm's per-document work on the three documents of
//! `SHAPES.md`: load, save_build (scalar / push) and delta.
//!
//! `cargo bench --bench shapes [-- FILTER...]` prints a table, then one
//! `SHAPE ROW NS` line per row. A row runs when its `SHAPE ROW` contains
//! every FILTER (e.g. `-- L` or `-- load`). `ODM_BENCH_RUNS` (default 5) and
//! `ODM_BENCH_SECS` (default 1) set the runs per row and their minimum length.
//! The figure reported is the median of the per-run CPU time of the bench
//! thread per op (`/proc/thread-self/schedstat`), so other processes on a
//! shared machine do not inflate it; the wall-clock median is shown next to
//! it (and used where CPU time cannot be read).
//! No connection is made: the model's client points at a closed port.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{article, comment, small, stored, Article, Comment, Rng, Small};
use odm::bson::raw::RawDocumentBuf;
use odm::prelude::*;

/// How long and how often each row is measured.
struct Plan {
    runs: usize,
    min_run: Duration,
    filters: Vec<String>,
}

impl Plan {
    fn from_env() -> Plan {
        let runs = std::env::var("ODM_BENCH_RUNS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(5usize)
            .max(1);
        let secs: f64 = std::env::var("ODM_BENCH_SECS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1.0);
        // cargo bench passes `--bench`; other flags are ignored too.
        let filters = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .collect();
        Plan {
            runs,
            min_run: Duration::from_secs_f64(secs),
            filters,
        }
    }

    fn wants(&self, name: &str) -> bool {
        self.filters.iter().all(|f| name.contains(f.as_str()))
    }
}

/// One measured row.
struct Row {
    shape: &'static str,
    row: &'static str,
    /// Wall-clock ns/op of each run, sorted.
    wall: Vec<f64>,
    /// CPU ns/op of each run, sorted (empty if unavailable).
    cpu: Vec<f64>,
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

impl Row {
    /// The reported figure: median CPU ns/op, or wall-clock without it.
    fn ns(&self) -> f64 {
        if self.cpu.is_empty() {
            median(&self.wall)
        } else {
            median(&self.cpu)
        }
    }
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

/// Runs `op(i)` with i = 0, 1, 2, ... in batches until `min_run` has passed.
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

fn measure(
    plan: &Plan,
    out: &mut Vec<Row>,
    shape: &'static str,
    row: &'static str,
    mut op: impl FnMut(u64),
) {
    if !plan.wants(&format!("{shape} {row}")) {
        return;
    }
    // Warm up and size the batches so the clock is read every ~10 ms.
    let mut next = 0u64;
    let warm = one_run(Duration::from_millis(200), 1, &mut next, &mut op);
    let batch = ((10_000_000.0 / warm.wall) as u64).max(1);
    let samples: Vec<Sample> = (0..plan.runs)
        .map(|_| one_run(plan.min_run, batch, &mut next, &mut op))
        .collect();
    let mut wall: Vec<f64> = samples.iter().map(|s| s.wall).collect();
    let mut cpu: Vec<f64> = samples.iter().filter_map(|s| s.cpu).collect();
    if cpu.len() != wall.len() {
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
        "  {shape} {row:<18} {:>12.0} ns/op cpu, {:>12.0} wall",
        r.ns(),
        median(&r.wall)
    );
    out.push(r);
}

/// A loaded document whose `counter` is set to a non-zero value.
fn counter_value(i: u64) -> i32 {
    (i % 1_000_000) as i32 + 1
}

fn bench_small(plan: &Plan, out: &mut Vec<Row>, model: &Model<Small>, raw: &RawDocumentBuf) {
    measure(plan, out, "S", "load", |_| {
        black_box(model.hydrate(black_box(raw)).unwrap());
    });
    let mut doc = model.hydrate(raw).unwrap();
    measure(plan, out, "S", "save_build_scalar", |i| {
        doc.counter = counter_value(i);
        doc.validate().unwrap();
        black_box(doc.changes().unwrap());
    });
    let mut doc = model.hydrate(raw).unwrap();
    doc.counter = 7;
    measure(plan, out, "S", "delta_scalar", |_| {
        black_box(black_box(&doc).changes().unwrap());
    });
}

fn bench_article(
    plan: &Plan,
    out: &mut Vec<Row>,
    shape: &'static str,
    model: &Model<Article>,
    raw: &RawDocumentBuf,
    extra: &Comment,
) {
    measure(plan, out, shape, "load", |_| {
        black_box(model.hydrate(black_box(raw)).unwrap());
    });
    let mut doc = model.hydrate(raw).unwrap();
    measure(plan, out, shape, "save_build_scalar", |i| {
        doc.counter = counter_value(i);
        doc.validate().unwrap();
        black_box(doc.changes().unwrap());
    });
    let mut doc = model.hydrate(raw).unwrap();
    measure(plan, out, shape, "save_build_push", |_| {
        doc.comments.push(extra.clone());
        doc.validate().unwrap();
        black_box(doc.changes().unwrap());
        // Back to the loaded state, so every iteration appends one comment.
        doc.comments.pop();
    });
    let mut doc = model.hydrate(raw).unwrap();
    doc.counter = 7;
    measure(plan, out, shape, "delta_scalar", |_| {
        black_box(black_box(&doc).changes().unwrap());
    });
}

fn print(rows: &[Row], sizes: &[(&str, usize)]) {
    println!();
    for (shape, size) in sizes {
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
    println!();
    for r in rows {
        println!("{} {} {:.0}", r.shape, r.row, r.ns());
    }
}

fn main() {
    let plan = Plan::from_env();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        // Only the collection handles are needed; nothing connects.
        let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/")
            .await
            .expect("a client");
        let db = client.database("odm_bench");

        let mut rng = Rng::new(0x0D0D_BE4C);
        let s = stored(&small(&mut rng));
        let m = stored(&article(&mut rng, 50));
        let l = stored(&article(&mut rng, 2000));
        let extra = comment(&mut rng, 2000);
        let sizes = [
            ("S", s.as_bytes().len()),
            ("M", m.as_bytes().len()),
            ("L", l.as_bytes().len()),
        ];

        let mut rows = Vec::new();
        eprintln!(
            "odm shapes bench: {} runs of >= {:?} per row",
            plan.runs, plan.min_run
        );
        bench_small(&plan, &mut rows, &Small::model(&db), &s);
        let articles = Article::model(&db);
        bench_article(&plan, &mut rows, "M", &articles, &m, &extra);
        bench_article(&plan, &mut rows, "L", &articles, &l, &extra);
        print(&rows, &sizes);

        client.shutdown().await;
    });
}
