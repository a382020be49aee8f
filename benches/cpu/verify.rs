//! The proof that both sides of a `CPU` row send the same commands: a
//! client of its own whose command events are recorded (a client without
//! a handler does the timing, since the driver copies every command into
//! its event when one listens), and the commands compared once what
//! differs by nature is set aside.

use std::sync::{Arc, Mutex};

use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;
use mongodb::options::ClientOptions;
use mongodb::Client;
use odm::bson::{Bson, Document as BsonDocument};

/// The commands one client started, in order.
#[derive(Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<BsonDocument>>>);

impl Recorder {
    /// The commands started since the last call.
    pub fn take(&self) -> Vec<BsonDocument> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// A client on the bench's server whose commands `Recorder` holds.
pub async fn monitored() -> (Client, Recorder) {
    let mut options = ClientOptions::parse(odm_testing::uri()).await.unwrap();
    let recorder = Recorder::default();
    let seen = recorder.clone();
    options.command_event_handler = Some(EventHandler::callback(move |event: CommandEvent| {
        if let CommandEvent::Started(e) = event {
            seen.0.lock().unwrap().push(e.command);
        }
    }));
    (Client::with_options(options).unwrap(), recorder)
}

/// The name of a command: its first key.
pub fn name(command: &BsonDocument) -> &str {
    command.keys().next().map_or("", String::as_str)
}

/// `commands` without what differs between two clients or two sides by
/// nature: the session id and cluster time the driver adds, a cursor's
/// id, and the side's database name (each side has its own database
/// holding the same documents), which `dbs` lists.
pub fn normalized(commands: Vec<BsonDocument>, dbs: &[&str]) -> Vec<BsonDocument> {
    commands
        .into_iter()
        .map(|mut c| {
            for key in ["lsid", "$clusterTime", "txnNumber"] {
                c.remove(key);
            }
            if c.contains_key("getMore") {
                c.insert("getMore", 0i64);
            }
            document(c, dbs)
        })
        .collect()
}

fn document(d: BsonDocument, dbs: &[&str]) -> BsonDocument {
    d.into_iter().map(|(k, v)| (k, value(v, dbs))).collect()
}

fn value(v: Bson, dbs: &[&str]) -> Bson {
    match v {
        Bson::Document(d) => Bson::Document(document(d, dbs)),
        Bson::Array(a) => Bson::Array(a.into_iter().map(|v| value(v, dbs)).collect()),
        Bson::String(s) => {
            for db in dbs {
                if s == *db {
                    return Bson::String("<db>".into());
                }
                if let Some(rest) = s.strip_prefix(&format!("{db}.")) {
                    return Bson::String(format!("<db>.{rest}"));
                }
            }
            Bson::String(s)
        }
        other => other,
    }
}
