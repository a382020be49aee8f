//! What a hook is told about the operation it runs in (the
//! [`Hooks`](crate::Hooks) trait itself is part of the user's surface).

use mongodb::{ClientSession, Database};

/// What a hook is told about the operation it runs in.
pub struct HookContext<'a> {
    session: Option<&'a mut ClientSession>,
    is_new: bool,
    database: Database,
}

impl<'a> HookContext<'a> {
    pub(crate) fn new(
        session: Option<&'a mut ClientSession>,
        is_new: bool,
        database: Database,
    ) -> Self {
        HookContext {
            session,
            is_new,
            database,
        }
    }

    /// The database of the document's collection, for a hook's own reads
    /// and writes (pass [`session`](HookContext::session) to them to join
    /// the operation's transaction).
    pub fn database(&self) -> &Database {
        &self.database
    }

    /// The session the operation runs in (and its transaction, if one is
    /// open), for a hook's own reads and writes to join it.
    pub fn session(&mut self) -> Option<&mut ClientSession> {
        self.session.as_deref_mut()
    }

    /// For a save: `true` when it inserts the document. For a delete: `false`.
    pub fn is_new(&self) -> bool {
        self.is_new
    }

    /// Gives the session back after the hook ran.
    pub(crate) fn into_session(self) -> Option<&'a mut ClientSession> {
        self.session
    }
}
