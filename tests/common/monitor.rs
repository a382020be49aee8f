//! One command monitor for every test that must prove what was (or was not)
//! sent: a client of its own whose `command_event_handler` records each
//! command it starts and how it ended.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use mongodb::bson::{Bson, Document};
use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;
use mongodb::options::ClientOptions;
use mongodb::Client;
use odm_testing::TestDb;

/// The commands that write.
pub const WRITES: [&str; 5] = ["insert", "update", "delete", "findAndModify", "bulkWrite"];

/// How a monitored command ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// No answer yet.
    Running,
    /// The server's reply (which may still hold a `writeConcernError`).
    Succeeded(Document),
    /// The driver's error (a server error, or a closed connection).
    Failed(String),
}

/// One command the client sent.
#[derive(Clone, Debug)]
pub struct Sent {
    pub name: String,
    pub db: String,
    pub command: Document,
    pub outcome: Outcome,
    request_id: i32,
}

impl Sent {
    /// The reply, when the command succeeded.
    pub fn reply(&self) -> Option<&Document> {
        match &self.outcome {
            Outcome::Succeeded(reply) => Some(reply),
            _ => None,
        }
    }

    /// Failed on the client's side: an error answer or a broken connection.
    pub fn failed(&self) -> bool {
        matches!(self.outcome, Outcome::Failed(_))
    }

    /// Applied, but the reply carries a `writeConcernError`.
    pub fn write_concern_error(&self) -> bool {
        self.reply()
            .is_some_and(|r| r.contains_key("writeConcernError"))
    }

    /// A `findAndModify` answered ok with `value: null`.
    pub fn empty_answer(&self) -> bool {
        self.reply()
            .is_some_and(|r| matches!(r.get("value"), Some(Bson::Null) | None))
    }

    /// The number of documents an `update` matched (`n`).
    pub fn matched(&self) -> Option<i64> {
        let n = self.reply()?.get("n")?;
        match n {
            Bson::Int32(n) => Some(i64::from(*n)),
            Bson::Int64(n) => Some(*n),
            Bson::Double(n) => Some(*n as i64),
            _ => None,
        }
    }
}

/// Records every command of one client, in the order they started.
#[derive(Clone, Default)]
pub struct Monitor {
    sent: Arc<Mutex<Vec<Sent>>>,
}

impl Monitor {
    pub fn new() -> Self {
        Self::default()
    }

    /// The handler to put in `ClientOptions::command_event_handler`.
    pub fn handler(&self) -> EventHandler<CommandEvent> {
        let sent = Arc::clone(&self.sent);
        EventHandler::callback(move |event: CommandEvent| {
            let mut sent = sent.lock().unwrap();
            let (id, outcome) = match event {
                CommandEvent::Started(e) => {
                    sent.push(Sent {
                        name: e.command_name,
                        db: e.db,
                        command: e.command,
                        outcome: Outcome::Running,
                        request_id: e.request_id,
                    });
                    return;
                }
                CommandEvent::Succeeded(e) => (e.request_id, Outcome::Succeeded(e.reply)),
                CommandEvent::Failed(e) => (e.request_id, Outcome::Failed(e.failure.to_string())),
                _ => return,
            };
            if let Some(s) = sent.iter_mut().rev().find(|s| s.request_id == id) {
                s.outcome = outcome;
            }
        })
    }

    /// Every command so far.
    pub fn all(&self) -> Vec<Sent> {
        self.sent.lock().unwrap().clone()
    }

    /// The commands named `name`.
    pub fn named(&self, name: &str) -> Vec<Sent> {
        self.all().into_iter().filter(|s| s.name == name).collect()
    }

    /// How many `name` commands were started.
    pub fn started(&self, name: &str) -> usize {
        self.named(name).len()
    }

    /// How many `name` commands failed on the client's side.
    pub fn failed(&self, name: &str) -> usize {
        self.named(name).iter().filter(|s| s.failed()).count()
    }

    /// The names of the write commands started, in order.
    pub fn writes(&self) -> Vec<String> {
        self.all()
            .into_iter()
            .filter(|s| WRITES.contains(&s.name.as_str()))
            .map(|s| s.name)
            .collect()
    }

    /// Forgets what was recorded so far.
    pub fn clear(&self) {
        self.sent.lock().unwrap().clear();
    }
}

static NEXT_APP: AtomicU64 = AtomicU64::new(0);

/// A test database whose client is monitored and names itself `app`
/// (unique in the process and across processes), so fail points can be
/// scoped to it.
pub struct Monitored {
    pub t: TestDb,
    pub monitor: Monitor,
    pub app: String,
}

impl Monitored {
    /// A monitored client on the test server, with the URI's options
    /// (`retryWrites=false` on the local server).
    pub async fn new(label: &str) -> Monitored {
        Self::with(label, |_| {}).await
    }

    /// As [`new`](Monitored::new), with `tune` applied to the options.
    pub async fn with(label: &str, tune: impl FnOnce(&mut ClientOptions)) -> Monitored {
        let n = NEXT_APP.fetch_add(1, Ordering::SeqCst);
        let app = format!("odm-{label}-{}-{n}", std::process::id());
        let monitor = Monitor::new();
        let mut options = ClientOptions::parse(odm_testing::uri()).await.unwrap();
        options.app_name = Some(app.clone());
        options.command_event_handler = Some(monitor.handler());
        tune(&mut options);
        let client = Client::with_options(options).unwrap();
        Monitored {
            t: TestDb::with_client(client),
            monitor,
            app,
        }
    }

    pub fn db(&self) -> &mongodb::Database {
        &self.t.db
    }

    pub fn client(&self) -> &Client {
        &self.t.client
    }

    /// Ends `session` on the server at once (`killSessions`), with any
    /// transaction it holds open: the server keeps a transaction whose
    /// commit it refused outright open, its documents locked, until it
    /// expires (60 s on MongoDB).
    pub async fn kill(&self, session: mongodb::ClientSession) {
        let lsid = session.id().clone();
        self.client()
            .database("admin")
            .run_command(mongodb::bson::doc! { "killSessions": [lsid] })
            .await
            .unwrap();
    }

    pub async fn finish(self) {
        self.t.finish().await;
    }
}
