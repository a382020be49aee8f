//! The `timestamps` fields of a shape that has them ([`Shape::STAMPS`]),
//! checked as stamps: `create` writes both with one time, every save that
//! writes something `$set`s `updated` to a time taken during the save
//! (replacing whatever the value held there, a date set by hand
//! included), the value takes that same time, a save that writes nothing
//! (or only bumps the version) stamps nothing, and `created` is never
//! stamped again (a hand-set one is an ordinary change). A stale copy's
//! stamp overwriting the other copy's is the later save's time, not a lost
//! write: the stale checks compare everything else, and `updated` here.

use mongodb::Database;
use odm::bson::{doc, Bson, DateTime, Document as BsonDocument};
use odm::prelude::*;

use crate::save_random::checks::VERSION_KEY;
use crate::save_random::compare::{same_opt, Changes};
use crate::save_random::history::{Ctx, Failure};
use crate::save_random::shapes::{Shape, Stamps};
use crate::save_random::show::sd;

/// The stamping clock's time when a write started (the application's, or
/// under `server_clock` the server's, read as odm reads it): the write's
/// stamp must fall between then and when the write returned, exactly.
pub struct Clock {
    from: DateTime,
    server: Option<Database>,
}

impl Clock {
    pub async fn start<S: Shape>(model: &Model<S>) -> Clock {
        let server = match S::STAMPS {
            Some(st) if st.server_clock => Some(model.database()),
            _ => None,
        };
        let from = now(server.as_ref()).await;
        Clock { from, server }
    }

    /// `(from, to)`, the window the stamp of the write just returned must
    /// fall in.
    async fn window(&self) -> (DateTime, DateTime) {
        (self.from, now(self.server.as_ref()).await)
    }
}

/// The application's time, or the server's (`hello`'s `localTime`).
async fn now(server: Option<&Database>) -> DateTime {
    let Some(db) = server else {
        return DateTime::now();
    };
    let hello = db.run_command(doc! { "hello": 1 }).await.expect("hello");
    *hello
        .get_datetime("localTime")
        .expect("hello has a localTime")
}

/// Whether an update writes a field beside the version.
pub fn writes(update: &BsonDocument) -> bool {
    update.iter().any(|(op, spec)| {
        op != "$inc"
            || spec
                .as_document()
                .is_some_and(|d| d.keys().any(|k| k != VERSION_KEY))
    })
}

fn show(x: Option<&Bson>) -> String {
    x.map_or("(absent)".into(), ToString::to_string)
}

/// `field` is the same in `after` as in `before` (numbers by value), else
/// why: both values, named `before -> after`.
fn kept(field: &str, before: &BsonDocument, after: &BsonDocument) -> Result<(), String> {
    let (was, now) = (before.get(field), after.get(field));
    if same_opt(was, now) {
        return Ok(());
    }
    Err(format!("{field}: {} -> {}", show(was), show(now)))
}

/// `field` of `doc` is a date within `clock`'s window.
async fn stamped_now(doc: &BsonDocument, field: &str, clock: &Clock) -> Result<(), String> {
    let (from, to) = clock.window().await;
    match doc.get(field) {
        Some(Bson::DateTime(at)) if *at >= from && *at <= to => Ok(()),
        other => Err(format!(
            "{field} is {}, not a time of the write (between {from} and {to})",
            show(other)
        )),
    }
}

/// After `create`: both fields stored, one time, taken during the create
/// (the value equal to the store is `check_saved`'s).
pub async fn check_insert<S: Shape>(
    cx: &Ctx,
    stored: &BsonDocument,
    clock: &Clock,
) -> Result<(), Failure> {
    let Some(st) = S::STAMPS else {
        return Ok(());
    };
    let fail = |kind: &str, why: String| {
        cx.fail(
            format!("create: {kind}"),
            format!("{why}\n  stored: {}", sd(stored)),
        )
    };
    stamped_now(stored, st.updated, clock)
        .await
        .map_err(|why| fail("the stored update stamp is not the create's time", why))?;
    if !same_opt(stored.get(st.created), stored.get(st.updated)) {
        return Err(fail(
            "the two stamps of a create differ",
            format!("{} != {}", st.created, st.updated),
        ));
    }
    Ok(())
}

/// After a save of one copy (checked stored == memory): `pre` is the value
/// just before the save, `update` what `changes()` said it would send,
/// `stored` the stored document after it.
pub async fn check_save<S: Shape>(
    cx: &Ctx,
    who: &str,
    pre: &BsonDocument,
    update: Option<&BsonDocument>,
    stored: &BsonDocument,
    clock: &Clock,
) -> Result<(), Failure> {
    let Some(st) = S::STAMPS else {
        return Ok(());
    };
    let fail = |kind: &str, why: String| {
        cx.fail(
            format!("{who}: {kind}"),
            format!(
                "{why}\n  value before the save: {}\n  stored: {}",
                sd(pre),
                sd(stored)
            ),
        )
    };
    match update.filter(|u| writes(u)) {
        Some(update) => {
            sets_stamp(update, st).map_err(|why| fail("a save that writes sends no stamp", why))?;
            stamped_now(stored, st.updated, clock)
                .await
                .map_err(|why| fail("the stored stamp is not the save's time", why))?;
        }
        None => kept(st.updated, pre, stored)
            .map_err(|why| fail("a save that writes nothing changed the stamp", why))?,
    }
    kept(st.created, pre, stored)
        .map_err(|why| fail("a save of a stored document changed the creation time", why))
}

/// The update `$set`s the stamp (a date), and no other operator touches it.
fn sets_stamp(update: &BsonDocument, st: Stamps) -> Result<(), String> {
    let set = update.get_document("$set").ok();
    if !matches!(set.and_then(|s| s.get(st.updated)), Some(Bson::DateTime(_))) {
        return Err(format!(
            "update {} has no $set of {}",
            sd(update),
            st.updated
        ));
    }
    let elsewhere = update.iter().any(|(op, spec)| {
        op != "$set"
            && spec
                .as_document()
                .is_some_and(|d| d.contains_key(st.updated))
    });
    if elsewhere {
        return Err(format!("update {} writes {} twice", sd(update), st.updated));
    }
    Ok(())
}

/// A stale save that landed: a stamp when its update writes, that same
/// time in the copy (`b_now`, serialized after the save) and the store;
/// then `expected` (its update applied by MongoDB's rules, with the time
/// `changes()` took before the save) takes the stored stamp, so the
/// comparison of the rest goes on.
pub async fn stale_landed<S: Shape>(
    cx: &Ctx,
    update: &BsonDocument,
    b_now: &BsonDocument,
    after: &BsonDocument,
    expected: &mut BsonDocument,
    clock: &Clock,
) -> Result<(), Failure> {
    let Some(st) = S::STAMPS else {
        return Ok(());
    };
    if !writes(update) {
        return Ok(());
    }
    let fail = |kind: &str, why: String| {
        cx.fail(
            format!("stale B: {kind}"),
            format!(
                "{why}\n  B now: {}\n  stored after B: {}",
                sd(b_now),
                sd(after)
            ),
        )
    };
    sets_stamp(update, st).map_err(|why| fail("a save that writes sends no stamp", why))?;
    stamped_now(after, st.updated, clock)
        .await
        .map_err(|why| fail("the stored stamp is not the save's time", why))?;
    kept(st.updated, b_now, after)
        .map_err(|why| fail("the copy's stamp is not the stored one (B -> stored)", why))?;
    if let Some(at) = after.get(st.updated) {
        expected.insert(st.updated, at.clone());
    }
    Ok(())
}

/// `changes()` without the stamp's `$set` (taken anew at every call), and
/// whether it had one; unchanged for a shape without stamps.
pub fn unstamped<S: Shape>(changes: Changes) -> (Changes, bool) {
    let (Some(st), Some((filter, mut update))) = (S::STAMPS, changes.clone()) else {
        return (changes, false);
    };
    let Ok(set) = update.get_document_mut("$set") else {
        return (Some((filter, update)), false);
    };
    let had = set.remove(st.updated).is_some();
    if set.is_empty() {
        update.remove("$set");
    }
    (Some((filter, update)), had)
}

/// A stale save refused: the copy keeps the stamp it had (`b_doc`, before
/// the save; `b_now` after).
pub fn refused_untouched<S: Shape>(
    cx: &Ctx,
    b_doc: &BsonDocument,
    b_now: &BsonDocument,
) -> Result<(), Failure> {
    let Some(st) = S::STAMPS else {
        return Ok(());
    };
    for field in [st.created, st.updated] {
        kept(field, b_doc, b_now)
            .map_err(|why| cx.fail("stale B: Error::Version, but the copy's stamps moved", why))?;
    }
    Ok(())
}
