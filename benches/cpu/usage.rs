//! This process's CPU time: `getrusage(RUSAGE_SELF)`, user + system, every
//! thread of the process (the caller's, tokio's workers, the driver's
//! background tasks), to the microsecond. The server is another process
//! and is not in it.

use std::time::Duration;

fn of(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
}

/// User + system CPU time of this process so far.
pub fn process_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    assert_eq!(ok, 0, "getrusage");
    // SAFETY: zeroed, then filled by the call above.
    let usage = unsafe { usage.assume_init() };
    of(usage.ru_utime) + of(usage.ru_stime)
}
