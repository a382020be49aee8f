//! The test support of odm's workspace, for its tests, examples and
//! benchmarks (not published; odm itself does not depend on it):
//!
//! - the local test server ([`uri`], [`TestDb`], [`Server`]): `MONGODB_URI`
//!   when set, else SecantusDB, a MongoDB-compatible server installed from
//!   PyPI into a virtual environment on first use (`.secantus/` in the
//!   workspace, or `$ODM_SECANTUS_HOME`), started on a free loopback port
//!   and stopped by its PID when the process exits, with its progress
//!   printed on stderr;
//! - [`random`]: the one seeded generator of the random histories and the
//!   benchmark documents;
//! - [`update`]: the one interpreter that applies an update document to a
//!   document in memory as MongoDB does, to check what a save sends.

pub mod random;
mod server;
pub mod update;

pub use server::{
    client, install, is_local, redacted, stop, uri, Server, TestDb, SECANTUS_PACKAGE,
};
