//! The one way odm talks to the server: every command goes through
//! [`session::send`] (with or without a session) and is logged by
//! [`command_log`]; [`fence`] adds a lease's token to a write and reads a
//! refusal back; [`conflict_log`] reports every conflict as one event.

pub(crate) mod command_log;
pub(crate) mod conflict_log;
pub(crate) mod fence;
pub(crate) mod server_clock;
pub(crate) mod session;
