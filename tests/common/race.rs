//! Tasks that really race: started together behind a barrier, with a
//! count of how many were in flight at once, so a test can tell a race
//! from calls that ran one after another.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::Barrier;

/// Share one (cloned) between the `n` tasks of a race.
#[derive(Clone)]
pub struct Race {
    start: Arc<Barrier>,
    in_flight: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
}

impl Race {
    /// A race of `n` tasks: each [`run`](Race::run) waits until all `n`
    /// have arrived.
    pub fn new(n: usize) -> Race {
        Race {
            start: Arc::new(Barrier::new(n)),
            in_flight: Arc::new(AtomicUsize::new(0)),
            most: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Waits for the others, then runs `work`. Takes a clone of the race,
    /// so the future can be spawned.
    pub async fn run<F: Future>(self, work: F) -> F::Output {
        self.start.wait().await;
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        let out = work.await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        out
    }

    /// The most tasks that were running `work` at once.
    pub fn most(&self) -> usize {
        self.most.load(Ordering::SeqCst)
    }
}
