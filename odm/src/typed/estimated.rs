//! [`Model::estimated_count`]: the collection's document count from its
//! metadata.

use mongodb::bson::doc;
use mongodb::ClientSession;

use crate::error::{from_driver, Error, Result};
use crate::model::Document;
use crate::model::Model;
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;

impl<T: Document> Model<T> {
    /// About how many documents the collection holds, from its metadata
    /// (the `count` command without a filter): fast, but after an unclean
    /// shutdown, or on a sharded cluster with orphaned documents, not
    /// exact. [`count`](Model::count) counts.
    pub fn estimated_count(&self) -> EstimatedCount<'_, T> {
        EstimatedCount {
            model: self,
            session: None,
        }
    }
}

/// A pending [`Model::estimated_count`].
#[must_use = "nothing is counted until it is awaited"]
pub struct EstimatedCount<'a, T: Document> {
    model: &'a Model<T>,
    session: Option<&'a mut ClientSession>,
}

awaitable! {
    impl['a, T: Document] EstimatedCount<'a, T> => Result<u64>;
    /// Counts inside `session` (not in a transaction: the server refuses
    /// `count` there).
    session;
    into_future(self) async move {
        let name = self.model.name();
        let log = Command::new(name, "count");
        let db = self.model.database();
        let action = db.run_command(doc! { "count": name });
        let reply = log
            .send(crate::wire::session::send(action, self.session))
            .await;
        let reply = reply.map_err(|e| from_driver(e, name))?;
        match reply.get("n").and_then(crate::codec::integer) {
            Some(n) => Ok(u64::try_from(n).unwrap_or(0)),
            None => Err(Error::Driver(crate::error::raised(format!(
                "the count of `{name}` answered without a number `n`: {reply}"
            )))),
        }
    }
}
