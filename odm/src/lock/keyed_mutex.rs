//! `KeyedMutex<K>`: one async mutex per key, inside one process.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex as StdMutex, MutexGuard as StdMutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::{Mutex, OwnedMutexGuard};

/// One holder per key at a time, in the order the holders asked (FIFO per
/// key), inside one process.
///
/// The fix for "check, then write" races between requests that one
/// instance serves at once (two clicks of the same button): lock the key
/// the rule is about (a user id), check, write, drop the guard. Keys do not
/// wait for each other. An entry exists only while someone holds or waits
/// on its key, so the map does not grow with the keys ever used
/// ([`len`](KeyedMutex::len) is 0 when nobody holds or waits).
///
/// The guard releases on drop: also when the holder panics, and a waiting
/// future that is dropped (cancelled, timed out) leaves the queue without
/// blocking the others. Guards own their key, so they can move into
/// `tokio::spawn`. Cloning a `KeyedMutex` gives another handle to the same
/// locks.
///
/// This excludes only within one process: across instances use
/// [`Leases`](crate::lock::Leases).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use odm::lock::KeyedMutex;
///
/// let mutex: KeyedMutex<String> = KeyedMutex::new();
/// {
///     let _guard = mutex.lock("user-1".to_string()).await;
///     assert!(mutex.try_lock("user-1".to_string()).is_none()); // held
///     assert!(mutex.try_lock("user-2".to_string()).is_some()); // another key
/// }
/// assert_eq!(mutex.len(), 0);
/// # }
/// ```
pub struct KeyedMutex<K> {
    entries: Arc<Entries<K>>,
}

type Entries<K> = StdMutex<HashMap<K, Entry>>;

/// One key's lock and how many holders and waiters use it.
struct Entry {
    mutex: Arc<Mutex<()>>,
    users: usize,
}

impl<K> Clone for KeyedMutex<K> {
    fn clone(&self) -> Self {
        KeyedMutex {
            entries: self.entries.clone(),
        }
    }
}

impl<K: Eq + Hash + Clone + Send + Sync + 'static> Default for KeyedMutex<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K> fmt::Debug for KeyedMutex<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyedMutex")
            .field("len", &lock_map(&self.entries).len())
            .finish()
    }
}

/// The map, even if a thread panicked while holding it (every update of
/// the map is complete before anything can panic).
fn lock_map<K>(entries: &Entries<K>) -> StdMutexGuard<'_, HashMap<K, Entry>> {
    entries.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<K: Eq + Hash + Clone + Send + Sync + 'static> KeyedMutex<K> {
    /// An empty set of locks.
    pub fn new() -> Self {
        KeyedMutex {
            entries: Arc::new(StdMutex::new(HashMap::new())),
        }
    }

    /// Waits until `key` is free, then holds it until the guard is dropped.
    /// Waiters of one key get it in the order they first polled this
    /// future. The future owns what it needs (`'static`), so it can be
    /// spawned; dropping it while it waits leaves the queue.
    pub fn lock(&self, key: K) -> impl Future<Output = KeyedMutexGuard<K>> + Send + 'static {
        let entries = self.entries.clone();
        async move {
            let (user, mutex) = User::join(entries, key);
            let guard = mutex.lock_owned().await;
            KeyedMutexGuard {
                _guard: guard,
                user,
            }
        }
    }

    /// Holds `key` if it is free now; `None` if someone holds it or waits
    /// for it.
    pub fn try_lock(&self, key: K) -> Option<KeyedMutexGuard<K>> {
        let (user, mutex) = User::join(self.entries.clone(), key);
        let guard = mutex.try_lock_owned().ok()?;
        Some(KeyedMutexGuard {
            _guard: guard,
            user,
        })
    }

    /// [`lock`](KeyedMutex::lock), giving up after `wait`: `None` when the
    /// key was not free in time (the waiter then leaves the queue).
    pub async fn lock_timeout(&self, key: K, wait: Duration) -> Option<KeyedMutexGuard<K>> {
        tokio::time::timeout(wait, self.lock(key)).await.ok()
    }

    /// How many keys have a holder or a waiter.
    pub fn len(&self) -> usize {
        lock_map(&self.entries).len()
    }

    /// `true` when no key has a holder or a waiter.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many holders and waiters `key` has (for tests).
    #[cfg(test)]
    pub(crate) fn users(&self, key: &K) -> usize {
        lock_map(&self.entries).get(key).map_or(0, |e| e.users)
    }
}

/// One holder or waiter of a key: counted in its entry from creation to
/// drop, and the entry goes when the last one drops.
struct User<K: Eq + Hash> {
    entries: Arc<Entries<K>>,
    key: K,
}

impl<K: Eq + Hash + Clone> User<K> {
    fn join(entries: Arc<Entries<K>>, key: K) -> (Self, Arc<Mutex<()>>) {
        let mutex = {
            let mut map = lock_map(&entries);
            let entry = map.entry(key.clone()).or_insert_with(|| Entry {
                mutex: Arc::new(Mutex::new(())),
                users: 0,
            });
            entry.users += 1;
            entry.mutex.clone()
        };
        (User { entries, key }, mutex)
    }
}

impl<K: Eq + Hash> Drop for User<K> {
    fn drop(&mut self) {
        let mut map = lock_map(&self.entries);
        if let Some(entry) = map.get_mut(&self.key) {
            entry.users -= 1;
            if entry.users == 0 {
                map.remove(&self.key);
            }
        }
    }
}

/// The holder of one key of a [`KeyedMutex`]; dropping it lets the next
/// waiter in. It owns its key and a handle to the map, so it is `'static`
/// and can move into `tokio::spawn`.
#[must_use = "the key is released as soon as the guard is dropped"]
pub struct KeyedMutexGuard<K: Eq + Hash> {
    // Field order is drop order: the lock is released before this holder
    // leaves the entry, so a new entry for the key is only made once
    // nobody holds the old one.
    _guard: OwnedMutexGuard<()>,
    user: User<K>,
}

impl<K: Eq + Hash> KeyedMutexGuard<K> {
    /// The key held.
    pub fn key(&self) -> &K {
        &self.user.key
    }
}

impl<K: Eq + Hash + fmt::Debug> fmt::Debug for KeyedMutexGuard<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyedMutexGuard")
            .field("key", &self.user.key)
            .finish()
    }
}

#[cfg(test)]
#[path = "keyed_mutex_tests.rs"]
mod tests;
