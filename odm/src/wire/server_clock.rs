//! `#[odm(timestamps(server_clock))]`: the stamps come from the server's
//! clock instead of the application's.
//!
//! Every write that stamps first reads the server's time (`hello`'s
//! `localTime`, one round trip, outside any session: the clock is the
//! server's whichever transaction the write is in), then stamps with it
//! exactly as with the client's clock: the same value goes into the write
//! and, once the write succeeds, into the `Doc`. So the stored document and
//! the value in memory hold the same time, inserts included (which
//! `$currentDate` cannot stamp), and nothing is read back after the write.
//! A save that writes nothing reads no time.

use mongodb::bson::{doc, Bson, DateTime};
use mongodb::Database;

use crate::error::{from_driver, Error, Result};
use crate::plan::request::Plan;
use crate::plan::tracked::Tracked;
use crate::schema::Schema;
use crate::wire::command_log::Command;

/// Whether `T`'s timestamps use the server's clock.
pub(crate) fn enabled<T: Schema>() -> bool {
    T::__odm_meta().timestamps.is_some_and(|ts| ts.server_clock)
}

/// The time to stamp a write of `T` with: the server's (read from
/// `database`) under `server_clock`, else the application's.
pub(crate) async fn now<T: Schema>(database: &Database, collection: &str) -> Result<DateTime> {
    if enabled::<T>() {
        server_now(database, collection).await
    } else {
        Ok(DateTime::now())
    }
}

/// The server's current time.
pub(crate) async fn server_now(database: &Database, collection: &str) -> Result<DateTime> {
    let log = Command::new(collection, "hello");
    let answer = log
        .send(database.run_command(doc! { "hello": 1 }))
        .await
        .map_err(|e| from_driver(e, collection))?;
    match answer.get("localTime") {
        Some(Bson::DateTime(at)) => Ok(*at),
        _ => Err(Error::Driver(crate::error::raised(
            "the server's hello answer has no localTime",
        ))),
    }
}

/// Restamps a save `plan` of `T` (made from `tracked`) with the server's
/// time, when `T` uses it and the plan stamps anything.
pub(crate) async fn restamp<T: Schema>(
    plan: &mut Plan,
    tracked: &Tracked,
    database: &Database,
    collection: &str,
) -> Result<()> {
    if enabled::<T>() && plan.stamp.is_some() {
        let at = server_now(database, collection).await?;
        crate::plan::timestamps::restamp::<T>(plan, tracked, at)?;
    }
    Ok(())
}
