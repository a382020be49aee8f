//! The local test server: installs, starts and stops SecantusDB, a
//! MongoDB-compatible server, for odm's tests, examples and benchmarks.
//!
//! When `MONGODB_URI` is set, that server is used and nothing is started.
//! Otherwise the first call installs `secantusdb==0.7.0b3` into a virtual
//! environment (under `.secantus/` in the workspace, or `$ODM_SECANTUS_HOME`),
//! starts one server per process on a free loopback port with in-memory
//! storage, and stops it by its PID when the process exits. The server also
//! exits by itself if this process dies without stopping it. Installing
//! and starting print their progress on stderr (`odm-testing: ...`).

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mongodb::{Client, Database};

/// The pinned server package.
pub const SECANTUS_PACKAGE: &str = "secantusdb==0.7.0b3";

/// Runs the server inside a watchdog that ends it when its parent is gone.
const LAUNCHER: &str = r#"
import os, sys, threading, time
parent = os.getppid()
def watch():
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
from secantus.cli import main
sys.argv = ["secantusd-py"] + sys.argv[1:]
sys.exit(main())
"#;

static SERVER_PID: AtomicI32 = AtomicI32::new(0);
static URI: OnceLock<Result<String, String>> = OnceLock::new();
static NEXT_DB: AtomicU64 = AtomicU64::new(0);

/// The connection string of the server under test: `MONGODB_URI`, or the
/// local server (started on first use).
///
/// # Panics
/// When the local server cannot be installed or started; the message says why.
pub fn uri() -> String {
    let uri = URI.get_or_init(|| match std::env::var("MONGODB_URI") {
        Ok(uri) if !uri.is_empty() => Ok(uri),
        _ => start_local(),
    });
    match uri {
        Ok(uri) => uri.clone(),
        Err(e) => panic!("the local MongoDB-compatible server is not available: {e}"),
    }
}

/// `uri` with any password replaced by `***`, for printing.
pub fn redacted(uri: &str) -> String {
    let Some((scheme, rest)) = uri.split_once("://") else {
        return uri.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let user = rest[..at].split(':').next().unwrap_or("");
            format!("{scheme}://{user}:***@{}", &rest[at + 1..])
        }
        None => uri.to_string(),
    }
}

/// `true` when the tests run against the local SecantusDB server.
pub fn is_local() -> bool {
    uri();
    SERVER_PID.load(Ordering::SeqCst) != 0
}

/// A client and a database of its own, for one test. Call
/// [`finish`](TestDb::finish) at the end: it drops the database and shuts
/// the client down.
#[non_exhaustive]
pub struct TestDb {
    /// The client.
    pub client: Client,
    /// A database no other test uses.
    pub db: Database,
}

impl TestDb {
    /// Connects to [`uri()`] and picks a fresh database name.
    pub async fn new() -> TestDb {
        TestDb::with_client(client().await)
    }

    /// A fresh database on `client`: one the caller built with options of
    /// its own (an app name, a command monitor).
    pub fn with_client(client: Client) -> TestDb {
        let n = NEXT_DB.fetch_add(1, Ordering::SeqCst);
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_micros())
            .unwrap_or(0);
        let name = format!(
            "odm_test_{}_{n}_{}",
            std::process::id(),
            stamp % 1_000_000_000
        );
        let db = client.database(&name);
        TestDb { client, db }
    }

    /// Drops the database and shuts the client down.
    pub async fn finish(self) {
        let _ = self.db.drop().await;
        self.client.shutdown().await;
    }
}

/// A client for [`uri()`].
pub async fn client() -> Client {
    let uri = uri();
    Client::with_uri_str(&uri)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to {uri}: {e}"))
}

/// Where the virtual environment lives.
fn home() -> PathBuf {
    match std::env::var_os("ODM_SECANTUS_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../.secantus"),
    }
}

/// Installs the server into `home()/venv` unless it is already there.
pub fn install() -> Result<PathBuf, String> {
    let home = home();
    let venv = home.join("venv");
    let python = venv.join("bin/python");
    let marker = venv.join(".odm-installed-secantusdb-0.7.0b3");
    if marker.exists() {
        return Ok(python);
    }
    std::fs::create_dir_all(&home).map_err(|e| format!("cannot create {}: {e}", home.display()))?;
    let _lock = InstallLock::take(&home.join("install.lock"))?;
    if marker.exists() {
        return Ok(python);
    }
    let started = Instant::now();
    eprintln!(
        "odm-testing: installing the local test server ({SECANTUS_PACKAGE}) with pip into {} \
         (once; this can take a minute)...",
        venv.display()
    );
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
    eprintln!("odm-testing: virtual environment created, installing {SECANTUS_PACKAGE}...");
    run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .arg(SECANTUS_PACKAGE))?;
    std::fs::write(&marker, SECANTUS_PACKAGE).map_err(|e| e.to_string())?;
    eprintln!(
        "odm-testing: installed in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    Ok(python)
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A lock file taken with `create_new`, so parallel test binaries install once.
struct InstallLock(PathBuf);

impl InstallLock {
    fn take(path: &Path) -> Result<InstallLock, String> {
        let start = Instant::now();
        loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(_) => return Ok(InstallLock(path.to_path_buf())),
                Err(_) if start.elapsed() > Duration::from_secs(600) => {
                    return Err(format!("{} is held for over 10 minutes", path.display()))
                }
                Err(_) => {
                    // A lock left behind by a killed installer is stale after 10 minutes.
                    let stale = std::fs::metadata(path)
                        .and_then(|m| m.modified())
                        .map(|t| t.elapsed().unwrap_or_default() > Duration::from_secs(600))
                        .unwrap_or(false);
                    if stale {
                        let _ = std::fs::remove_file(path);
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
        }
    }
}

impl Drop for InstallLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(listener.local_addr().map_err(|e| e.to_string())?.port())
}

fn start_local() -> Result<String, String> {
    let python = install()?;
    let mut last = String::new();
    for _ in 0..3 {
        let port = free_port()?;
        let started = Instant::now();
        eprintln!("odm-testing: starting the local test server on 127.0.0.1:{port}...");
        match spawn(
            &python,
            port,
            &["--storage-path", ":memory:", "--enable-test-commands"],
        ) {
            Ok(child) => {
                eprintln!(
                    "odm-testing: the local test server is up ({:.1}s); it stops when this process exits",
                    started.elapsed().as_secs_f64()
                );
                SERVER_PID.store(child.id() as i32, Ordering::SeqCst);
                // SAFETY: registering a plain extern "C" function is sound.
                unsafe { libc::atexit(stop_at_exit) };
                return Ok(format!(
                    "mongodb://127.0.0.1:{port}/?directConnection=true&retryWrites=false"
                ));
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn spawn(python: &Path, port: u16, args: &[&str]) -> Result<Child, String> {
    let mut child = Command::new(python)
        .arg("-c")
        .arg(LAUNCHER)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            // Keep draining stderr so the server never blocks on a full pipe.
            if let Some(mut err) = child.stderr.take() {
                std::thread::spawn(move || {
                    let mut sink = [0u8; 4096];
                    while matches!(err.read(&mut sink), Ok(n) if n > 0) {}
                });
            }
            return Ok(child);
        }
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            return Err(format!(
                "the server exited ({status}) on port {port}: {}",
                err.trim()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(format!(
        "the server did not listen on port {port} within 60 s"
    ))
}

/// Stops the local server by its PID: SIGTERM, then SIGKILL after 5 s.
pub fn stop() {
    stop_pid(SERVER_PID.swap(0, Ordering::SeqCst));
}

/// SIGTERM to a server this process started, then SIGKILL after 5 s.
fn stop_pid(pid: i32) {
    if pid <= 0 {
        return;
    }
    // SAFETY: plain syscalls on a PID this process started.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut status = 0;
        while Instant::now() < deadline {
            if libc::waitpid(pid, &mut status, libc::WNOHANG) == pid {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, &mut status, 0);
    }
}

extern "C" fn stop_at_exit() {
    stop();
}

/// A server of its own, beside the shared one of [`uri()`]: started with
/// the arguments a test needs (a disk `--storage-path` it can restart on,
/// `--auth`), on a free loopback port, and stopped by its PID when dropped
/// (or when this process dies). Tests that restart a server use it; it
/// needs the local server package, whatever `MONGODB_URI` says.
pub struct Server {
    child: Child,
    port: u16,
}

impl Server {
    /// Installs the server package if needed and starts a server with
    /// `args` (e.g. `["--storage-path", dir, "--auth"]`).
    pub fn start(args: &[&str]) -> Result<Server, String> {
        let python = install()?;
        let mut last = String::new();
        for _ in 0..3 {
            let port = free_port()?;
            match spawn(&python, port, args) {
                Ok(child) => return Ok(Server { child, port }),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Its loopback port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops it and waits until it has exited (its storage is then closed).
    pub fn stop(self) {}
}

impl Drop for Server {
    fn drop(&mut self) {
        stop_pid(self.child.id() as i32);
    }
}
