//! Fault injection with the server's `failCommand` fail point, scoped to
//! one test's client.
//!
//! A `failCommand` fail point is server-wide, and configuring it replaces
//! the one before. So every fail point here names the test client's
//! `appName` (no other client's commands can use it up), fires a fixed
//! number of `times`, and is held under one lock per process from the
//! moment it is set until it is switched off (no other test of the binary
//! can replace it meanwhile).

use std::sync::OnceLock;

use mongodb::bson::{doc, Document};
use mongodb::Client;
use tokio::sync::{Mutex, MutexGuard};

use super::monitor::Monitored;

/// Held while a fail point is set.
static FAIL_POINTS: Mutex<()> = Mutex::const_new(());

/// `Err(why)` when the server refuses `configureFailPoint`.
static SUPPORTED: OnceLock<Result<(), String>> = OnceLock::new();

/// The four faults every write is put through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The server drops the connection without running the command.
    Closed,
    /// ShutdownInProgress (91), with the labels the server computes; not run.
    Retryable,
    /// The command runs, then the reply carries a `writeConcernError` (64).
    WriteConcern,
    /// BadValue (2); not run.
    NonRetryable,
}

impl Fault {
    pub const ALL: [Fault; 4] = [
        Fault::Closed,
        Fault::Retryable,
        Fault::WriteConcern,
        Fault::NonRetryable,
    ];

    /// The fail point's `data`, without `failCommands` and `appName`.
    pub fn data(self) -> Document {
        match self {
            Fault::Closed => doc! { "closeConnection": true },
            Fault::Retryable => doc! { "errorCode": 91 },
            Fault::WriteConcern => doc! {
                "writeConcernError": {
                    "code": 64,
                    "codeName": "WriteConcernFailed",
                    "errmsg": "waiting for replication timed out",
                    "errInfo": { "wtimeout": true },
                }
            },
            Fault::NonRetryable => doc! { "errorCode": 2 },
        }
    }

    /// Whether the server applies the write before answering.
    pub fn applies(self) -> bool {
        self == Fault::WriteConcern
    }
}

/// A `failCommand` fail point of one client; switch it off with
/// [`off`](FailPoint::off). Dropped while on (a failed assertion), it is
/// switched off from a thread of its own.
pub struct FailPoint {
    client: Option<Client>,
    _held: MutexGuard<'static, ()>,
}

impl FailPoint {
    /// Switches the fail point off.
    pub async fn off(mut self) {
        if let Some(client) = self.client.take() {
            client
                .database("admin")
                .run_command(off())
                .await
                .expect("switch the fail point off");
        }
    }
}

impl Drop for FailPoint {
    fn drop(&mut self) {
        if self.client.take().is_none() {
            return;
        }
        let uri = odm_testing::uri();
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let client = Client::with_uri_str(&uri).await.unwrap();
                let _ = client.database("admin").run_command(off()).await;
                client.shutdown().await;
            });
        })
        .join();
    }
}

/// The environment variable that says the server under test has no fail
/// points (`ODM_TEST_NO_FAIL_POINTS=1`): only then does a fault test skip
/// when `configureFailPoint` is refused.
pub const NO_FAIL_POINTS: &str = "ODM_TEST_NO_FAIL_POINTS";

/// What a fault test does when the server refused `configureFailPoint`
/// with `why`: `Ok(line to print)` when `opt_out` (the value of
/// [`NO_FAIL_POINTS`]) is set to anything but `""` or `0`, else `Err(the
/// failure's text)`. A skipped test never passes silently.
pub fn refusal_verdict(
    label: &str,
    why: &str,
    opt_out: Option<std::ffi::OsString>,
) -> Result<String, String> {
    let opted_out = opt_out.is_some_and(|v| !v.is_empty() && v != "0");
    if opted_out {
        Ok(format!(
            "SKIPPED {label}: the server refuses configureFailPoint ({why}) and {NO_FAIL_POINTS} says so"
        ))
    } else {
        Err(format!(
            "{label}: the server refuses configureFailPoint ({why}); fault tests need a server with fail points (MongoDB started with --setParameter enableTestCommands=1, or the local test server). To skip them on a server without, set {NO_FAIL_POINTS}=1"
        ))
    }
}

fn off() -> Document {
    doc! { "configureFailPoint": "failCommand", "mode": "off" }
}

impl Monitored {
    /// A monitored client. When the server under test refuses
    /// `configureFailPoint` the test fails, unless [`NO_FAIL_POINTS`] opts
    /// out: then this prints `SKIPPED` and returns `None` (the caller skips
    /// its test).
    pub async fn with_fail_points(label: &str) -> Option<Monitored> {
        Self::with_fail_points_and(label, |_| {}).await
    }

    /// As [`with_fail_points`](Monitored::with_fail_points), with `tune`
    /// applied to the client's options. The client does not retry writes
    /// (unless `tune` says so), and checks the server every 500 ms (the
    /// least allowed), so one marked unknown by a fault (91
    /// ShutdownInProgress does that) is back quickly.
    pub async fn with_fail_points_and(
        label: &str,
        tune: impl FnOnce(&mut mongodb::options::ClientOptions),
    ) -> Option<Monitored> {
        let m = Monitored::with(label, |options| {
            options.heartbeat_freq = Some(std::time::Duration::from_millis(500));
            // As the test URI says; a fault test that wants the driver's
            // own resend turns it on.
            options.retry_writes = Some(false);
            tune(options);
        })
        .await;
        if SUPPORTED.get().is_none() {
            let _held = FAIL_POINTS.lock().await;
            // Never fires: no command has this name.
            let probe = doc! {
                "configureFailPoint": "failCommand",
                "mode": { "times": 1 },
                "data": { "failCommands": ["odmNoSuchCommand"], "appName": &m.app, "errorCode": 2 },
            };
            let answer = m.client().database("admin").run_command(probe).await;
            let _ = SUPPORTED.set(answer.map(|_| ()).map_err(|e| match &*e.kind {
                mongodb::error::ErrorKind::Command(c) => {
                    format!("error {} ({}): {}", c.code, c.code_name, c.message)
                }
                _ => e.to_string(),
            }));
        }
        match SUPPORTED.get().unwrap() {
            Ok(()) => Some(m),
            Err(why) => {
                let verdict = refusal_verdict(label, why, std::env::var_os(NO_FAIL_POINTS));
                m.finish().await;
                match verdict {
                    Ok(skipped) => {
                        println!("{skipped}");
                        None
                    }
                    Err(failed) => panic!("{failed}"),
                }
            }
        }
    }

    /// Fails the next `times` of this client's `commands` with `fault`.
    pub async fn fail(&self, commands: &[&str], times: i32, fault: Fault) -> FailPoint {
        self.fail_with(commands, times, fault.data()).await
    }

    /// Sets a `failCommand` fail point with `data` (to which `failCommands`
    /// and this client's `appName` are added) for the next `times` matching
    /// commands of this client.
    pub async fn fail_with(&self, commands: &[&str], times: i32, data: Document) -> FailPoint {
        self.fail_skipping(commands, 0, times, data).await
    }

    /// As [`fail_with`](Monitored::fail_with), letting the first `skip`
    /// matching commands through.
    pub async fn fail_skipping(
        &self,
        commands: &[&str],
        skip: i32,
        times: i32,
        mut data: Document,
    ) -> FailPoint {
        let held = FAIL_POINTS.lock().await;
        data.insert("failCommands", commands);
        data.insert("appName", &self.app);
        self.client()
            .database("admin")
            .run_command(doc! {
                "configureFailPoint": "failCommand",
                "mode": { "skip": skip, "times": times },
                "data": data,
            })
            .await
            .expect("configureFailPoint");
        FailPoint {
            client: Some(self.client().clone()),
            _held: held,
        }
    }
}

/// Asserts that `err` is what `fault` makes the driver report.
pub fn assert_reported(err: &odm::Error, fault: Fault) {
    use mongodb::error::{ErrorKind, WriteFailure};
    let odm::Error::Driver(e) = err else {
        panic!("{fault:?}: expected a driver error, got {err:?}");
    };
    let expected = match (fault, &*e.kind) {
        (Fault::Closed, ErrorKind::Io(_)) => true,
        (Fault::Retryable, ErrorKind::Command(c)) => c.code == 91,
        (Fault::WriteConcern, ErrorKind::Write(WriteFailure::WriteConcernError(w))) => w.code == 64,
        (Fault::NonRetryable, ErrorKind::Command(c)) => c.code == 2,
        _ => false,
    };
    assert!(expected, "{fault:?}: unexpected error {e:?}");
}

/// Asserts that the `name` commands sent since the monitor was cleared
/// ended, in order, as `faults` make them end; a command past the faults
/// succeeded without a write concern error.
pub fn assert_sent(monitor: &super::Monitor, name: &str, faults: &[Fault]) {
    let sent = monitor.named(name);
    assert!(
        sent.len() >= faults.len(),
        "{faults:?}: {} {name} sent: {sent:?}",
        sent.len()
    );
    for (i, s) in sent.iter().enumerate() {
        let ended_as = match faults.get(i) {
            Some(Fault::WriteConcern) => !s.failed() && s.write_concern_error(),
            Some(_) => s.failed(),
            None => !s.failed() && !s.write_concern_error(),
        };
        assert!(ended_as, "{name} #{i} under {faults:?}: {:?}", s.outcome);
    }
}

impl Monitored {
    /// Runs `op` while this client's next `command` fails with `fault`,
    /// then asserts that the fault fired on that command. The monitor is
    /// cleared first, so it then holds what `op` sent.
    pub async fn with_fault<F: std::future::IntoFuture>(
        &self,
        command: &str,
        fault: Fault,
        op: F,
    ) -> F::Output {
        self.monitor.clear();
        let fail_point = self.fail(&[command], 1, fault).await;
        let out = op.await;
        fail_point.off().await;
        assert_sent(&self.monitor, command, &[fault]);
        out
    }

    /// As [`with_fault`](Monitored::with_fault), for an `op` that must fail
    /// with the error `fault` makes the driver report: returns it.
    pub async fn failing<T: std::fmt::Debug, F>(
        &self,
        command: &str,
        fault: Fault,
        op: F,
    ) -> odm::Error
    where
        F: std::future::IntoFuture<Output = odm::Result<T>>,
    {
        let err = self.with_fault(command, fault, op).await.unwrap_err();
        assert_reported(&err, fault);
        err
    }
}
