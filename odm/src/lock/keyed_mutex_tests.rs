//! `KeyedMutex` under real concurrency: counted outcomes, no timing.

use std::future::{poll_fn, Future};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use super::KeyedMutex;

/// Polls `future` once: `true` if it is still waiting (then it is queued).
async fn poll_once<F: Future + Unpin>(future: &mut F) -> bool {
    poll_fn(|cx| Poll::Ready(std::pin::Pin::new(&mut *future).poll(cx).is_pending())).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thousand_tasks_over_ten_keys_never_overlap_and_go_in_order() {
    const KEYS: usize = 10;
    const TASKS: usize = 1_000;
    let mutex: KeyedMutex<usize> = KeyedMutex::new();
    let inside: Arc<Vec<AtomicUsize>> = Arc::new((0..KEYS).map(|_| AtomicUsize::new(0)).collect());
    let overlaps = Arc::new(AtomicUsize::new(0));
    let order: Arc<Vec<Mutex<Vec<usize>>>> =
        Arc::new((0..KEYS).map(|_| Mutex::new(Vec::new())).collect());

    // Hold every key, queue the tasks in a known order, then let them run.
    let holders: Vec<_> = (0..KEYS).map(|k| mutex.try_lock(k).unwrap()).collect();
    let mut tasks = Vec::new();
    for i in 0..TASKS {
        let key = i % KEYS;
        let mut waiting = Box::pin(mutex.lock(key));
        assert!(poll_once(&mut waiting).await, "task {i} is queued");
        let (inside, overlaps, order) = (inside.clone(), overlaps.clone(), order.clone());
        tasks.push(tokio::spawn(async move {
            let guard = waiting.await;
            assert_eq!(*guard.key(), key);
            if inside[key].fetch_add(1, Ordering::SeqCst) != 0 {
                overlaps.fetch_add(1, Ordering::SeqCst);
            }
            order[key].lock().unwrap().push(i);
            tokio::task::yield_now().await;
            inside[key].fetch_sub(1, Ordering::SeqCst);
        }));
    }
    assert_eq!(mutex.len(), KEYS);
    assert_eq!(mutex.users(&3), 1 + TASKS / KEYS);
    drop(holders);
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(overlaps.load(Ordering::SeqCst), 0);
    for (key, order) in order.iter().enumerate() {
        let order = order.lock().unwrap();
        let expected: Vec<usize> = (0..TASKS).filter(|i| i % KEYS == key).collect();
        assert_eq!(*order, expected, "key {key} went in FIFO order");
    }
    assert_eq!(mutex.len(), 0);
    assert!(mutex.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn free_running_contention_never_overlaps() {
    let mutex: KeyedMutex<String> = KeyedMutex::new();
    let inside: Arc<Vec<AtomicUsize>> = Arc::new((0..10).map(|_| AtomicUsize::new(0)).collect());
    let overlaps = Arc::new(AtomicUsize::new(0));
    let entered = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..1_000)
        .map(|i| {
            let (mutex, inside, overlaps, entered) = (
                mutex.clone(),
                inside.clone(),
                overlaps.clone(),
                entered.clone(),
            );
            tokio::spawn(async move {
                let key = i % 10;
                let _guard = mutex.lock(format!("user-{key}")).await;
                if inside[key].fetch_add(1, Ordering::SeqCst) != 0 {
                    overlaps.fetch_add(1, Ordering::SeqCst);
                }
                entered.fetch_add(1, Ordering::SeqCst);
                tokio::task::yield_now().await;
                inside[key].fetch_sub(1, Ordering::SeqCst);
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(overlaps.load(Ordering::SeqCst), 0);
    assert_eq!(entered.load(Ordering::SeqCst), 1_000);
    assert_eq!(mutex.len(), 0);
}

#[tokio::test]
async fn a_cancelled_waiter_does_not_block_the_others() {
    let mutex: KeyedMutex<&'static str> = KeyedMutex::new();
    let holder = mutex.lock("k").await;
    let mut first = Box::pin(mutex.lock("k"));
    assert!(poll_once(&mut first).await);
    let mut second = Box::pin(mutex.lock("k"));
    assert!(poll_once(&mut second).await);
    assert_eq!(mutex.users(&"k"), 3);
    drop(first); // cancelled while queued
    assert_eq!(mutex.users(&"k"), 2);
    drop(holder);
    let guard = second.await;
    assert_eq!(mutex.users(&"k"), 1);
    drop(guard);
    assert_eq!(mutex.len(), 0);

    // A timed-out waiter leaves too.
    let holder = mutex.lock("k").await;
    assert!(mutex
        .lock_timeout("k", Duration::from_millis(1))
        .await
        .is_none());
    assert_eq!(mutex.users(&"k"), 1);
    drop(holder);
    assert!(mutex
        .lock_timeout("k", Duration::from_secs(60))
        .await
        .is_some());
    assert_eq!(mutex.len(), 0);
}

#[tokio::test]
async fn a_future_never_polled_takes_no_place() {
    let mutex: KeyedMutex<u8> = KeyedMutex::new();
    let pending = mutex.lock(1);
    assert_eq!(mutex.len(), 0);
    drop(pending);
    assert_eq!(mutex.len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_that_panics_releases() {
    let mutex: KeyedMutex<u8> = KeyedMutex::new();
    let m = mutex.clone();
    let crashed = tokio::spawn(async move {
        let _guard = m.lock(7).await;
        panic!("the holder fails inside the critical section");
    })
    .await;
    assert!(crashed.unwrap_err().is_panic());
    assert_eq!(mutex.len(), 0);
    assert!(mutex.try_lock(7).is_some());
}

#[tokio::test]
async fn try_lock_takes_only_a_free_key() {
    let mutex: KeyedMutex<u8> = KeyedMutex::new();
    let a = mutex.try_lock(1).expect("free");
    assert!(mutex.try_lock(1).is_none());
    assert_eq!(mutex.len(), 1, "a failed try_lock leaves nothing behind");
    let b = mutex.try_lock(2).expect("another key");
    assert_eq!(mutex.len(), 2);
    drop(a);
    assert!(mutex.try_lock(1).is_some());
    drop(b);
    assert_eq!(mutex.len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owned_guards_move_into_spawned_tasks() {
    let mutex: KeyedMutex<String> = KeyedMutex::new();
    let guard = mutex.lock("job".to_string()).await;
    let task = tokio::spawn(async move {
        // The guard moved here; the key stays held until it is dropped.
        assert_eq!(guard.key(), "job");
        drop(guard);
    });
    task.await.unwrap();
    assert!(mutex.try_lock("job".to_string()).is_some());
    assert_eq!(mutex.len(), 0);
}
