//! The server's answer to one bulk write, read out per statement: which
//! inserts landed, how many documents each update matched, which
//! statements the server refused, and which are in doubt. Pure: the
//! driver's result or error in, one [`Answer`] per statement out.

use mongodb::error::{BulkWriteError, ErrorKind, PartialBulkWriteResult, WriteFailure};
use mongodb::results::VerboseBulkWriteResult;

/// What became of one statement of a bulk write.
#[derive(Debug, Clone)]
pub(crate) enum Answer {
    /// The insert landed.
    Inserted,
    /// The update ran and matched this many documents (0 or 1).
    Matched(u64),
    /// Matched nothing as far as a read after the write tells: the
    /// document does not hold the statement's write, but the server's count
    /// leaves open that it landed and was overwritten since (the `update`
    /// command's answer). Told in doubt (an error that may have applied),
    /// never a miss.
    Unheld,
    /// The server refused the statement (a duplicate key, a failed
    /// document validation): nothing of it was applied.
    Refused(mongodb::error::Error),
    /// The statement was applied, but the write concern was not satisfied:
    /// its durability is unknown.
    Unsatisfied(mongodb::error::Error),
    /// No answer for this statement (a lost connection, a command error):
    /// it may or may not have been applied, as the error says
    /// ([`may_have_applied`](crate::error::may_have_applied)).
    Unknown(mongodb::error::Error),
}

impl Answer {
    /// Whether the statement got an answer of its own (not only the
    /// batch's error).
    pub(crate) fn is_own(&self) -> bool {
        matches!(
            self,
            Answer::Inserted | Answer::Matched(_) | Answer::Refused(_) | Answer::Unheld
        )
    }
}

/// One answer per statement of a bulk write of `count` statements that
/// ended with `result`.
pub(crate) fn read(
    count: usize,
    result: mongodb::error::Result<VerboseBulkWriteResult>,
) -> Vec<Answer> {
    match result {
        Ok(done) => {
            // Every statement of an unordered bulk write that ended without
            // an error has its result; a missing one is not guessed.
            let missing = missing_result();
            (0..count)
                .map(|i| landed(&done, i).unwrap_or_else(|| Answer::Unknown(missing.clone())))
                .collect()
        }
        Err(e) => match &*e.kind {
            ErrorKind::BulkWrite(bulk) => partial(count, bulk, &e),
            _ => vec![Answer::Unknown(e); count],
        },
    }
}

fn landed(done: &VerboseBulkWriteResult, i: usize) -> Option<Answer> {
    if let Some(u) = done.update_results.get(&i) {
        return Some(Answer::Matched(u.matched_count));
    }
    done.insert_results
        .contains_key(&i)
        .then_some(Answer::Inserted)
}

/// The answers of a bulk write that failed in part: write errors refuse
/// their statements; results land (or stand unsatisfied, under a write
/// concern error); every other statement has the batch's error.
fn partial(count: usize, bulk: &BulkWriteError, e: &mongodb::error::Error) -> Vec<Answer> {
    let done = match &bulk.partial_result {
        Some(PartialBulkWriteResult::Verbose(done)) => Some(done),
        _ => None,
    };
    let unsatisfied = bulk.write_concern_errors.first().map(|w| {
        mongodb::error::Error::from(ErrorKind::Write(WriteFailure::WriteConcernError(w.clone())))
    });
    // The error that stopped the batch, when one did; else the bulk
    // error itself (which leaves the outcome in doubt).
    let top = std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<mongodb::error::Error>())
        .cloned()
        .unwrap_or_else(|| e.clone());
    (0..count)
        .map(|i| {
            if let Some(w) = bulk.write_errors.get(&i) {
                let refused = ErrorKind::Write(WriteFailure::WriteError(w.clone()));
                return Answer::Refused(refused.into());
            }
            match (done.and_then(|d| landed(d, i)), &unsatisfied) {
                (Some(Answer::Matched(0)), _) => Answer::Matched(0),
                (Some(_), Some(w)) => Answer::Unsatisfied(w.clone()),
                (Some(answer), None) => answer,
                (None, _) => Answer::Unknown(top.clone()),
            }
        })
        .collect()
}

/// The error of a statement the server's answer does not mention.
fn missing_result() -> mongodb::error::Error {
    crate::error::raised("the bulk write's answer has no result for this statement")
}

#[cfg(test)]
mod tests {
    use mongodb::error::{WriteConcernError, WriteError};
    use mongodb::results::{InsertOneResult, UpdateResult};

    use super::*;

    // The driver's result types are `#[non_exhaustive]`: built from their
    // defaults.
    fn verbose(inserted: &[usize], updated: &[(usize, u64)]) -> VerboseBulkWriteResult {
        let mut done = VerboseBulkWriteResult::default();
        for i in inserted {
            done.insert_results.insert(*i, InsertOneResult::default());
        }
        for (i, n) in updated {
            let mut u = UpdateResult::default();
            u.matched_count = *n;
            u.modified_count = *n;
            done.update_results.insert(*i, u);
        }
        done
    }

    fn names(answers: &[Answer]) -> Vec<String> {
        answers
            .iter()
            .map(|a| match a {
                Answer::Inserted => "inserted".to_string(),
                Answer::Matched(n) => format!("matched {n}"),
                Answer::Refused(_) => "refused".to_string(),
                Answer::Unsatisfied(_) => "unsatisfied".to_string(),
                Answer::Unknown(_) => "unknown".to_string(),
                Answer::Unheld => "unheld".to_string(),
            })
            .collect()
    }

    #[test]
    fn a_whole_answer_is_read_per_statement() {
        let done = verbose(&[0], &[(1, 1), (2, 0)]);
        let answers = read(4, Ok(done));
        assert_eq!(
            names(&answers),
            ["inserted", "matched 1", "matched 0", "unknown"]
        );
        assert!(answers[0].is_own() && answers[2].is_own() && !answers[3].is_own());
    }

    #[test]
    fn an_error_without_a_bulk_answer_leaves_every_statement_unknown() {
        let e: mongodb::error::Error = ErrorKind::Io(std::sync::Arc::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "reset",
        )))
        .into();
        assert_eq!(names(&read(2, Err(e))), ["unknown", "unknown"]);
    }

    fn write_error(code: i32) -> WriteError {
        crate::bson_release::testing::from_document(mongodb::bson::doc! { "code": code, "errmsg": "E11000 duplicate key error collection: d.c index: email_1 dup key: { email: \"x\" }" }).unwrap()
    }

    #[test]
    fn write_errors_refuse_and_a_write_concern_error_leaves_landed_statements_unsatisfied() {
        let mut bulk = BulkWriteError::default();
        bulk.write_errors.insert(1, write_error(11000));
        bulk.partial_result = Some(PartialBulkWriteResult::Verbose(verbose(
            &[0],
            &[(2, 0), (3, 1)],
        )));
        let e: mongodb::error::Error = ErrorKind::BulkWrite(bulk.clone()).into();
        assert_eq!(
            names(&read(5, Err(e))),
            ["inserted", "refused", "matched 0", "matched 1", "unknown"]
        );
        let wce: WriteConcernError = crate::bson_release::testing::from_document(mongodb::bson::doc! { "code": 64, "codeName": "WriteConcernFailed", "errmsg": "timeout" }).unwrap();
        bulk.write_concern_errors.push(wce);
        let e: mongodb::error::Error = ErrorKind::BulkWrite(bulk).into();
        assert_eq!(
            names(&read(5, Err(e))),
            [
                "unsatisfied",
                "refused",
                "matched 0",
                "unsatisfied",
                "unknown"
            ]
        );
    }
}
