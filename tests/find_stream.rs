//! `model.find(filter).stream()`: documents one at a time over the
//! server's cursor. A scan of 20,000 documents in 200 batches
//! (`ODM_STREAM_EVENTS=100000`: 100,000 in batches of 500) holds about one
//! batch (a counting allocator measures the peak against the `Vec` of
//! `find`, on the measuring test's threads only), a bad document is one
//! `Err` item and the scan goes on, `batch_size` is sent, and the stream
//! works inside a session.

use crate::common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

use common::Monitored;
use futures_util::{StreamExt, TryStreamExt};
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

/// The system allocator, counting the bytes in use and their peak on the
/// threads of the one test that measures (see [`COUNTED`]), so the other
/// tests of this process, running beside it, do not move its figures.
struct Counting;

static IN_USE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    /// Whether this thread's allocations are counted: the threads of the
    /// measuring test's runtime (its workers, where the driver's tasks
    /// run too, and the thread that blocks on it).
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn counted() -> bool {
    COUNTED.try_with(Cell::get).unwrap_or(false)
}

fn grow(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    let now = IN_USE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn shrink(bytes: usize) {
    IN_USE.fetch_sub(
        isize::try_from(bytes).unwrap_or(isize::MAX),
        Ordering::Relaxed,
    );
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && counted() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        if counted() {
            shrink(layout.size());
        }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() && counted() {
            if new_size > layout.size() {
                grow(new_size - layout.size());
            } else {
                shrink(layout.size() - new_size);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns its result with the peak of the bytes in use
/// during it, above what was in use before.
async fn peak_of<R>(f: impl std::future::Future<Output = R>) -> (R, usize) {
    let base = IN_USE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let result = f.await;
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    (result, usize::try_from(peak).unwrap_or(0))
}

/// A multi-thread runtime of two workers whose threads, and the one that
/// blocks on it, count their allocations.
fn counted_runtime() -> tokio::runtime::Runtime {
    COUNTED.with(|c| c.set(true));
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .on_thread_start(|| COUNTED.with(|c| c.set(true)))
        .enable_all()
        .build()
        .expect("a runtime")
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "events")]
struct Event {
    #[serde(rename = "_id")]
    id: i64,
    name: String,
    body: String,
    size: i64,
}

fn event(i: i64) -> BsonDocument {
    doc! {
        "_id": i,
        "name": format!("event-{i}"),
        "body": "x".repeat(200),
        "size": i,
        "__v": 0,
    }
}

/// Inserts `events` documents through the driver, 10,000 at a time.
async fn insert_events(model: &Model<Event>, events: i64, bad: &[i64]) {
    let mut start = 0;
    while start < events {
        let end = (start + 10_000).min(events);
        let batch = (start..end).map(|i| {
            let mut d = event(i);
            if bad.contains(&i) {
                d.insert("size", "not a number");
            }
            d
        });
        model.collection().insert_many(batch).await.unwrap();
        start = end;
    }
}

/// The documents of the peak-memory test: 20,000 (a second or two of the
/// server's time per pass), or `ODM_STREAM_EVENTS`. They are read in 200
/// batches whatever the count, so the stream holds a 200th of them.
fn events_count() -> i64 {
    std::env::var("ODM_STREAM_EVENTS")
        .ok()
        .map(|s| {
            s.parse()
                .expect("ODM_STREAM_EVENTS is a number of documents")
        })
        .unwrap_or(20_000)
}

#[test]
fn a_stream_of_many_documents_holds_one_batch_not_all() {
    counted_runtime().block_on(stream_holds_one_batch());
}

async fn stream_holds_one_batch() {
    let n = events_count();
    let batch = u32::try_from(n / 200).unwrap().max(1);
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    insert_events(&events, n, &[]).await;

    let ((count, sum), stream_peak) = peak_of(async {
        let mut stream = events
            .find(doc! {})
            .sort(doc! { "_id": 1 })
            .batch_size(batch)
            .stream()
            .await
            .unwrap();
        let (mut count, mut sum) = (0_i64, 0_i64);
        while let Some(event) = stream.try_next().await.unwrap() {
            assert_eq!(event.id, count);
            count += 1;
            sum += event.size;
        }
        (count, sum)
    })
    .await;
    assert_eq!((count, sum), (n, n * (n - 1) / 2));

    let (all, vec_peak) = peak_of(async {
        let all = events.find(doc! {}).batch_size(batch).await.unwrap();
        all.len()
    })
    .await;
    assert_eq!(all, n as usize);

    println!(
        "peak memory while reading {n} documents (batches of {batch}): stream {} KiB, Vec {} KiB",
        stream_peak / 1024,
        vec_peak / 1024
    );
    // Every document is about 300 bytes stored: the Vec holds them all
    // (over 6 MB for 20,000, 30 MB for 100,000), the stream about one batch.
    assert!(vec_peak > n as usize * 300, "Vec peak {vec_peak}");
    assert!(
        stream_peak * 20 < vec_peak,
        "stream peak {stream_peak} vs Vec peak {vec_peak}"
    );
    t.finish().await;
}

#[tokio::test]
async fn a_bad_document_is_one_error_and_the_scan_goes_on() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    insert_events(&events, 1_000, &[500]).await;

    let items: Vec<odm::Result<Doc<Event>>> = events
        .find(doc! {})
        .sort(doc! { "_id": 1 })
        .batch_size(100)
        .stream()
        .await
        .unwrap()
        .collect()
        .await;
    assert_eq!(items.len(), 1_000);
    let mut ids = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        match item {
            Ok(event) => ids.push(event.id),
            Err(Error::Deserialize(e)) => {
                assert_eq!(
                    (i, &e.id, e.path.as_str()),
                    (500, &Bson::Int64(500), "size")
                );
            }
            Err(other) => panic!("unexpected error {other}"),
        }
    }
    assert_eq!(ids, (0..1_000).filter(|i| *i != 500).collect::<Vec<_>>());

    // Awaited as a Vec, the same bad document fails the whole read.
    let e = events.find(doc! {}).await.unwrap_err();
    assert!(matches!(e, Error::Deserialize(_)), "{e:?}");
    t.finish().await;
}

#[tokio::test]
async fn batch_size_is_sent_and_the_stream_works_in_a_session() {
    let m = Monitored::new("stream").await;
    let events = Event::model(m.db());
    insert_events(&events, 1_000, &[]).await;

    let mut session = m.client().start_session().await.unwrap();
    let mut stream = events
        .find(doc! { "_id": { "$gte": 100 } })
        .sort(doc! { "_id": 1 })
        .batch_size(250)
        .session(&mut session)
        .stream()
        .await
        .unwrap();
    let mut next = 100;
    while let Some(event) = stream.try_next().await.unwrap() {
        assert_eq!(event.id, next);
        next += 1;
    }
    drop(stream);
    assert_eq!(next, 1_000);
    // The session is free again once the stream is dropped.
    assert_eq!(
        events.count(doc! {}).session(&mut session).await.unwrap(),
        1_000
    );

    let lsid = session.id().clone();
    let sent: Vec<BsonDocument> = m
        .monitor
        .all()
        .into_iter()
        .filter(|s| ["find", "getMore"].contains(&s.name.as_str()) && s.db == m.db().name())
        .map(|s| s.command)
        .collect();
    let find = &sent[0];
    assert_eq!(find.get_str("find").unwrap(), "events");
    assert_eq!(find.get("batchSize"), Some(&Bson::Int32(250)));
    // 900 documents in batches of 250: the first batch, then getMores for
    // the other three (and one that finds the cursor exhausted, if any).
    let more: Vec<_> = sent[1..].iter().collect();
    assert!((3..=4).contains(&more.len()), "{sent:?}");
    for more in &more {
        assert_eq!(more.get("batchSize"), Some(&Bson::Int32(250)), "{more}");
        assert_eq!(
            more.get_document("lsid").ok(),
            Some(&lsid),
            "getMore outside the session"
        );
    }
    assert_eq!(
        find.get_document("lsid").ok(),
        Some(&lsid),
        "find outside the session"
    );
    drop(session);
    m.finish().await;
}
