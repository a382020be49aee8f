//! Which way a batch goes to the server: the `bulkWrite` command (MongoDB
//! 8.0+: one answer per statement) or the `insert` / `update` commands
//! with many statements (every supported server: an update is told only
//! by the command's count, see [`resolve`](super::resolve)).
//!
//! Where the server has `bulkWrite` it is used: its per-statement answer
//! tells every `Doc` its outcome even while other writers change the same
//! documents, where the commands' count may need a read and, under such
//! interference, can leave a `Doc` in doubt.

use mongodb::bson::{doc, Bson, Document as BsonDocument};

use crate::command_log::Command;
use crate::document::Document;
use crate::model::Model;

/// The wire version of MongoDB 8.0, the first with `bulkWrite`.
pub(crate) const BULK_WRITE_WIRE_VERSION: i64 = 25;

/// Which way a batch is sent: chosen from the server (`Auto`), or forced,
/// for tests that run one batch both ways. Not public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BulkPath {
    /// `bulkWrite` where the server has it, else the commands.
    #[default]
    Auto,
    /// The `bulkWrite` command.
    BulkWrite,
    /// The `insert` / `update` commands with many statements.
    Commands,
}

/// The server's limits on one write command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// `maxWriteBatchSize`: statements in one command.
    pub max_batch: usize,
    /// `maxBsonObjectSize`: bytes of one command document.
    pub max_bson: usize,
}

/// What `hello` says of the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hello {
    pub max_wire_version: i64,
    pub limits: Limits,
}

impl Hello {
    /// Whether the server has `bulkWrite`.
    pub(crate) fn bulk_write(&self) -> bool {
        self.max_wire_version >= BULK_WRITE_WIRE_VERSION
    }
}

/// Reads `hello`'s answer (absent limits take MongoDB's values).
pub(crate) fn read_hello(reply: &BsonDocument) -> Hello {
    let int = |name: &str, default: i64| match reply.get(name) {
        Some(Bson::Int32(n)) => i64::from(*n),
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Double(n)) => *n as i64,
        _ => default,
    };
    Hello {
        max_wire_version: int("maxWireVersion", 0),
        limits: Limits {
            max_batch: int("maxWriteBatchSize", 100_000).max(1) as usize,
            max_bson: int("maxBsonObjectSize", 16 * 1024 * 1024).max(1) as usize,
        },
    }
}

/// Asks the server `hello`.
pub(crate) async fn hello<T: Document>(model: &Model<T>) -> mongodb::error::Result<Hello> {
    let log = Command::new(model.name(), "hello");
    let database = model.database();
    let action = database.run_command(doc! { "hello": 1 });
    Ok(read_hello(&log.send(action).await?))
}

/// Whether the driver refused a `bulkWrite` before sending it because the
/// server is older than 8.0.
pub(crate) fn too_old(e: &mongodb::error::Error) -> bool {
    matches!(
        &*e.kind,
        mongodb::error::ErrorKind::IncompatibleServer { .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_tells_the_path_and_the_limits() {
        let old = read_hello(
            &doc! { "maxWireVersion": 21, "maxWriteBatchSize": 1000, "maxBsonObjectSize": 4096i64 },
        );
        assert!(!old.bulk_write());
        assert_eq!(
            old.limits,
            Limits {
                max_batch: 1000,
                max_bson: 4096
            }
        );
        let new = read_hello(&doc! { "maxWireVersion": 25 });
        assert!(new.bulk_write());
        assert_eq!(new.limits.max_batch, 100_000);
        assert_eq!(new.limits.max_bson, 16 * 1024 * 1024);
    }
}
