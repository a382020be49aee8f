//! Every command odm sends is a `tracing` event, like Mongoose's debug
//! mode: target `odm::command`.
//!
//! - At `DEBUG`, one event per command when its answer arrived, with the
//!   fields `collection`, `operation` (`insert`, `update`, `findAndModify`,
//!   `find`, `count`, `delete`, `listIndexes`, `createIndexes`,
//!   `buildInfo`, `commitTransaction`, `abortTransaction`), `filter` and `update` as
//!   their shape only (keys and operators, every value shown as `?`),
//!   `duration`, `outcome` (`ok` or `error`), on error the server's
//!   `code` (0 when it gave none), and on success the `result` in brief
//!   (`matched 1, modified 1`, `deleted 0`, `found`, `none`, a count).
//! - At `TRACE`, a second event adds the values: the filter, the update
//!   (or the inserted document) and the error's full text. This level is
//!   the one switch for values: under it, the texts of odm's errors show
//!   their values too ([`crate::values_shown`]).
//!
//! A `find` is logged when its first batch arrived; the cursor's further
//! batches (`getMore`) are the driver's and are not logged. An
//! `abortTransaction` is logged even when the driver had nothing to abort
//! (no command ran in the transaction) and so sent nothing.
//!
//! Nothing else is logged: no connection string, no credentials. When no
//! subscriber listens at `DEBUG` for this target, a command costs one
//! check of the level and no formatting.
//!
//! Every send site goes through [`Command::send`].

use std::future::IntoFuture;
use std::time::{Duration, Instant};

use mongodb::bson::raw::{RawBsonRef, RawDocument};
use mongodb::bson::{Bson, Document};
use tracing::Level;

/// The target of the events; its `TRACE` level is also the switch of the
/// values in odm's error texts (see [`crate::values_shown`]).
pub(crate) const TARGET: &str = crate::error::VALUES_TARGET;

/// A document of a command, as given to the driver.
#[derive(Clone, Copy)]
pub(crate) enum Shown<'a> {
    Doc(&'a Document),
    Raw(&'a RawDocument),
    Pipeline(&'a [Document]),
}

impl<'a> From<&'a Document> for Shown<'a> {
    fn from(d: &'a Document) -> Self {
        Shown::Doc(d)
    }
}

impl<'a> From<&'a RawDocument> for Shown<'a> {
    fn from(d: &'a RawDocument) -> Self {
        Shown::Raw(d)
    }
}

impl<'a> From<&'a [Document]> for Shown<'a> {
    fn from(p: &'a [Document]) -> Self {
        Shown::Pipeline(p)
    }
}

/// One command about to be sent, with what its events show (rendered only
/// when a subscriber wants them).
pub(crate) struct Command<'a> {
    collection: &'a str,
    operation: &'static str,
    debug: bool,
    trace: bool,
    filter: Rendered,
    update: Rendered,
}

/// A document's shape (for `DEBUG`) and values (for `TRACE`).
#[derive(Default)]
struct Rendered {
    shape: String,
    values: String,
}

impl Rendered {
    fn new(shown: Shown<'_>, values: bool) -> Rendered {
        let mut out = Rendered::default();
        match shown {
            Shown::Doc(d) => {
                shape_of_doc(d, &mut out.shape);
                if values {
                    out.values = d.to_string();
                }
            }
            Shown::Raw(d) => {
                shape_of_raw(d, &mut out.shape);
                if values {
                    out.values = match Document::try_from(d) {
                        Ok(d) => d.to_string(),
                        Err(e) => format!("(malformed: {e})"),
                    };
                }
            }
            Shown::Pipeline(stages) => {
                out.shape.push('[');
                for (i, stage) in stages.iter().enumerate() {
                    out.shape.push_str(if i == 0 { " " } else { ", " });
                    shape_of_doc(stage, &mut out.shape);
                }
                out.shape.push_str(" ]");
                if values {
                    let stages: Vec<Bson> = stages.iter().cloned().map(Bson::Document).collect();
                    out.values = Bson::Array(stages).to_string();
                }
            }
        }
        out
    }
}

impl<'a> Command<'a> {
    /// The command `operation` on `collection` (`""` for none).
    pub(crate) fn new(collection: &'a str, operation: &'static str) -> Command<'a> {
        let debug = tracing::enabled!(target: TARGET, Level::DEBUG);
        let trace = debug && tracing::enabled!(target: TARGET, Level::TRACE);
        Command {
            collection,
            operation,
            debug,
            trace,
            filter: Rendered::default(),
            update: Rendered::default(),
        }
    }

    /// Its filter.
    pub(crate) fn filter<'d>(mut self, filter: impl Into<Shown<'d>>) -> Self {
        if self.debug {
            self.filter = Rendered::new(filter.into(), self.trace);
        }
        self
    }

    /// Its update, pipeline or inserted document.
    pub(crate) fn update<'d>(mut self, update: impl Into<Shown<'d>>) -> Self {
        if self.debug {
            self.update = Rendered::new(update.into(), self.trace);
        }
        self
    }

    /// Awaits `sent` (the driver's action, or an `async` block around it)
    /// and logs its outcome.
    pub(crate) async fn send<R: Answer>(
        self,
        sent: impl IntoFuture<Output = mongodb::error::Result<R>>,
    ) -> mongodb::error::Result<R> {
        let started = Instant::now();
        let result = sent.await;
        if self.debug {
            let duration = started.elapsed();
            match &result {
                Ok(answer) => self.log(duration, &answer.brief(), None),
                Err(e) => self.log(duration, "", Some(e)),
            }
        }
        result
    }

    fn log(&self, duration: Duration, brief: &str, error: Option<&mongodb::error::Error>) {
        let outcome = if error.is_some() { "error" } else { "ok" };
        let code = error.and_then(crate::error::classify::code).unwrap_or(0);
        tracing::debug!(
            target: TARGET,
            collection = self.collection,
            operation = self.operation,
            filter = self.filter.shape.as_str(),
            update = self.update.shape.as_str(),
            ?duration,
            outcome,
            code,
            result = brief,
            "{} {}",
            self.operation,
            self.collection,
        );
        if self.trace {
            let error = error.map(|e| crate::error::Described(e).to_string());
            tracing::trace!(
                target: TARGET,
                collection = self.collection,
                operation = self.operation,
                filter = self.filter.values.as_str(),
                update = self.update.values.as_str(),
                error = error.as_deref().unwrap_or(""),
                "{} {} values",
                self.operation,
                self.collection,
            );
        }
    }
}

/// A driver call's answer, in brief and without values.
pub(crate) trait Answer {
    fn brief(&self) -> String;
}

impl Answer for mongodb::results::UpdateResult {
    fn brief(&self) -> String {
        format!(
            "matched {}, modified {}",
            self.matched_count, self.modified_count
        )
    }
}

impl Answer for mongodb::results::DeleteResult {
    fn brief(&self) -> String {
        format!("deleted {}", self.deleted_count)
    }
}

impl Answer for mongodb::results::InsertOneResult {
    fn brief(&self) -> String {
        "inserted".to_string()
    }
}

impl<T> Answer for Option<T> {
    fn brief(&self) -> String {
        if self.is_some() { "found" } else { "none" }.to_string()
    }
}

impl Answer for u64 {
    fn brief(&self) -> String {
        self.to_string()
    }
}

impl Answer for () {
    fn brief(&self) -> String {
        String::new()
    }
}

impl Answer for Document {
    fn brief(&self) -> String {
        String::new()
    }
}

impl<T> Answer for mongodb::Cursor<T> {
    fn brief(&self) -> String {
        "cursor".to_string()
    }
}

impl<T> Answer for mongodb::SessionCursor<T> {
    fn brief(&self) -> String {
        "cursor".to_string()
    }
}

/// `{ a: ?, $set: { b: ? } }`: the keys, each value a `?` unless it is a
/// document or an array of documents.
fn shape_of_doc(d: &Document, out: &mut String) {
    crate::error::shape_of_doc(d, false, out);
}

/// [`shape_of_doc`] of a raw document (an inserted one: top-level keys).
fn shape_of_raw(d: &RawDocument, out: &mut String) {
    out.push('{');
    let mut empty = true;
    for (i, element) in d.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        empty = false;
        match element {
            Ok((key, value)) => {
                out.push_str(crate::bson_release::key_str(key));
                out.push_str(": ");
                match value {
                    RawBsonRef::Document(inner) => shape_of_raw(inner, out),
                    _ => out.push('?'),
                }
            }
            Err(_) => out.push('?'),
        }
    }
    out.push_str(if empty { "}" } else { " }" });
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::{doc, rawdoc};

    fn shape(shown: Shown<'_>) -> String {
        Rendered::new(shown, false).shape
    }

    #[test]
    fn shapes_hide_every_value() {
        let filter =
            doc! { "_id": 1, "$and": [{ "a": "x" }, { "b": { "$gt": 5 } }], "tags": ["t"] };
        assert_eq!(
            shape((&filter).into()),
            "{ _id: ?, $and: [ { a: ? }, { b: { $gt: ? } } ], tags: ? }"
        );
        let update =
            doc! { "$set": { "email": "a@b.c", "meta": { "city": "Oslo" } }, "$inc": { "__v": 1 } };
        assert_eq!(
            shape((&update).into()),
            "{ $set: { email: ?, meta: { city: ? } }, $inc: { __v: ? } }"
        );
        let inserted = rawdoc! { "_id": 1, "secret": "pw", "nested": { "k": 2 } };
        assert_eq!(
            shape(inserted.as_ref().into()),
            "{ _id: ?, secret: ?, nested: { k: ? } }"
        );
        let pipeline = [doc! { "$set": { "owner": null } }];
        assert_eq!(
            shape(pipeline.as_slice().into()),
            "[ { $set: { owner: ? } } ]"
        );
        assert_eq!(shape((&doc! {}).into()), "{}");
    }

    #[test]
    fn values_are_rendered_only_when_asked() {
        let filter = doc! { "email": "a@b.c" };
        assert_eq!(Rendered::new((&filter).into(), false).values, "");
        assert_eq!(
            Rendered::new((&filter).into(), true).values,
            "{ \"email\": \"a@b.c\" }"
        );
    }
}
