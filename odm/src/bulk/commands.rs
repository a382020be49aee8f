//! The batch through the `insert` and `update` commands (many statements,
//! `ordered: false`), for servers without `bulkWrite` (MongoDB < 8.0):
//! split at the server's limits, each reply read per statement. An insert
//! without a write error landed; an update is told only by the command's
//! count, so where the count does not pin each statement down, one read of
//! the statements' documents does ([`resolve`](super::resolve)).

use mongodb::bson::raw::{RawArrayBuf, RawBson, RawDocumentBuf};
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use mongodb::error::{ErrorKind, WriteConcernError, WriteError, WriteFailure};
use mongodb::ClientSession;

use super::answer::Answer;
use super::path::Limits;
use super::resolve::{self, Expect, Verdict};
use crate::model::Document;
use crate::model::Model;
use crate::wire::command_log::Command;
use crate::wire::session::send;

/// One statement of the batch, borrowed from its `Doc`'s step.
pub(crate) enum Statement<'s> {
    Insert(&'s RawDocumentBuf),
    Update {
        id: &'s Bson,
        filter: &'s BsonDocument,
        update: &'s BsonDocument,
        expect: Expect<'s>,
    },
}

/// The answers, one per statement, and the documents the settling read
/// found when one was made: it read every update statement's document and
/// ran `checks`, the filters of the `Doc`s with nothing to write, so no
/// second read is needed.
pub(crate) struct Sent {
    pub answers: Vec<Answer>,
    pub found: Option<mongodb::error::Result<Vec<BsonDocument>>>,
}

/// The reply of one command, per statement of it.
struct Reply {
    /// Statement indices (into the batch) this command carried.
    members: Vec<usize>,
    outcome: mongodb::error::Result<Counted>,
}

struct Counted {
    n: u64,
    /// `(position in the command, error)`.
    refused: Vec<(usize, WriteError)>,
    unsatisfied: Option<mongodb::error::Error>,
}

/// Sends `statements` as [`Sent`] says. `fenced`: the batch is fenced,
/// and states `w: majority` (when `true`).
pub(crate) async fn write<T: Document>(
    model: &Model<T>,
    statements: Vec<Statement<'_>>,
    checks: Vec<BsonDocument>,
    limits: Limits,
    fenced: Option<bool>,
    mut session: Option<&mut ClientSession>,
) -> Sent {
    let mut replies = Vec::new();
    for built in build(model.name(), &statements, limits, fenced == Some(true)) {
        let log = Command::new(model.name(), built.name);
        let database = model.database();
        let action = database.run_raw_command(built.command);
        let outcome = log.send(send(action, session.as_deref_mut())).await;
        replies.push(Reply {
            members: built.members,
            outcome: outcome.and_then(counted),
        });
    }

    let mut answers: Vec<Option<Answer>> = vec![None; statements.len()];
    let key = T::__odm_meta().versioning.key;
    let mut open = Vec::new();
    for reply in &replies {
        let counted = match &reply.outcome {
            Err(e) => {
                for &i in &reply.members {
                    answers[i] = Some(Answer::Unknown(e.clone()));
                }
                continue;
            }
            Ok(c) => c,
        };
        for (at, w) in &counted.refused {
            if let Some(&i) = reply.members.get(*at) {
                let e = ErrorKind::Write(WriteFailure::WriteError(w.clone()));
                answers[i] = Some(Answer::Refused(e.into()));
            }
        }
        let live: Vec<usize> = reply
            .members
            .iter()
            .copied()
            .filter(|&i| answers[i].is_none())
            .collect();
        let inserts = matches!(
            live.first().map(|&i| &statements[i]),
            Some(Statement::Insert(_))
        );
        if inserts || !resolve::needs_read(counted.n, live.len()) {
            let verdict = match inserts {
                true => Verdict::Landed,
                false => resolve::without_read(counted.n, live.len()),
            };
            for i in live {
                answers[i] = Some(answer(verdict, counted, inserts));
            }
        } else {
            open.push((live, counted));
        }
    }

    let mut found = None;
    if !open.is_empty() {
        // Every update's document, not only the open ones': the read also
        // settles the misses of the other commands (a guarded or fenced
        // miss), which no second read then asks again.
        let ids: Vec<Bson> = statements
            .iter()
            .filter_map(|s| match s {
                Statement::Update { id, .. } => Some((*id).clone()),
                Statement::Insert(_) => None,
            })
            .collect();
        let mut clauses = vec![doc! { "_id": { "$in": ids } }];
        clauses.extend(checks);
        // Whole documents: each is compared with the value its Doc would
        // commit.
        let filter = doc! { "$or": clauses };
        let read = super::read::read(model, filter, None, fenced.is_some(), session).await;
        for (live, counted) in open {
            let verdicts = match &read {
                Ok(docs) => {
                    let by_id: std::collections::HashMap<super::refuse::Key, &BsonDocument> = docs
                        .iter()
                        .filter_map(|d| Some((super::refuse::key(d.get("_id")?), d)))
                        .collect();
                    let cases: Vec<(&Expect<'_>, Option<&BsonDocument>)> = live
                        .iter()
                        .map(|&i| match &statements[i] {
                            Statement::Update { id, expect, .. } => {
                                (expect, by_id.get(&super::refuse::key(id)).copied())
                            }
                            Statement::Insert(_) => unreachable!("inserts need no read"),
                        })
                        .collect();
                    resolve::decide(counted.n, &cases, key)
                }
                Err(_) => vec![Verdict::Unknown; live.len()],
            };
            for (i, verdict) in live.into_iter().zip(verdicts) {
                answers[i] = Some(match (&read, verdict) {
                    (Err(e), _) => Answer::Unknown(e.clone()),
                    (Ok(_), v) => answer(v, counted, false),
                });
            }
        }
        found = Some(read);
    }
    Sent {
        answers: answers
            .into_iter()
            .map(|a| a.unwrap_or_else(|| Answer::Unknown(untold())))
            .collect(),
        found,
    }
}

/// One statement of the `update` command, as encoded.
#[derive(serde::Serialize)]
struct Encoded<'s> {
    q: &'s BsonDocument,
    u: &'s BsonDocument,
}

/// One command of a batch, built: its name, the indices (into the batch)
/// of the statements it carries, and the command document.
pub(crate) struct Built {
    pub name: &'static str,
    pub members: Vec<usize>,
    pub command: RawDocumentBuf,
}

/// The commands that carry `statements` to collection `coll`: one
/// unordered `insert` of the inserts and one unordered `update` of the
/// updates, each split at `limits`; with `w: majority` when `majority`.
pub(crate) fn build(
    coll: &str,
    statements: &[Statement<'_>],
    limits: Limits,
    majority: bool,
) -> Vec<Built> {
    let mut inserts = Vec::new();
    let mut updates = Vec::new();
    for (i, s) in statements.iter().enumerate() {
        match s {
            Statement::Insert(raw) => inserts.push((i, RawBson::Document((*raw).clone()))),
            Statement::Update { filter, update, .. } => {
                // `{q, u}` in one pass of odm's serializer (the bytes
                // `bson` writes). Documents odm built always serialize; if
                // one does not, the server refuses the empty statement.
                let one = crate::codec::to_raw_sized(
                    &Encoded {
                        q: filter,
                        u: update,
                    },
                    128,
                )
                .unwrap_or_else(|_| RawDocumentBuf::new());
                updates.push((i, RawBson::Document(one)));
            }
        }
    }
    let mut built = Vec::new();
    for (name, list, key) in [
        ("insert", inserts, "documents"),
        ("update", updates, "updates"),
    ] {
        let sizes: Vec<usize> = list.iter().map(|(_, s)| size(s)).collect();
        let mut list = list.into_iter();
        for batch in split(&sizes, limits) {
            let part: Vec<(usize, RawBson)> = list.by_ref().take(batch).collect();
            let members = part.iter().map(|(i, _)| *i).collect();
            let mut command = RawDocumentBuf::new();
            crate::bson_release::append(&mut command, name, coll);
            let array: RawArrayBuf = part.into_iter().map(|(_, s)| s).collect();
            crate::bson_release::append(&mut command, key, array);
            crate::bson_release::append(&mut command, "ordered", false);
            if majority {
                let majority = mongodb::bson::rawdoc! { "w": "majority" };
                crate::bson_release::append(&mut command, "writeConcern", majority);
            }
            built.push(Built {
                name,
                members,
                command,
            });
        }
    }
    built
}

/// The answer of a statement judged `verdict` in a command answered
/// `counted`.
fn answer(verdict: Verdict, counted: &Counted, insert: bool) -> Answer {
    match (verdict, &counted.unsatisfied) {
        (Verdict::Missed, _) => Answer::Matched(0),
        (Verdict::Unheld, _) => Answer::Unheld,
        (Verdict::Unknown, _) => Answer::Unknown(untold()),
        (Verdict::Landed, Some(w)) => Answer::Unsatisfied(w.clone()),
        (Verdict::Landed, None) if insert => Answer::Inserted,
        (Verdict::Landed, None) => Answer::Matched(1),
    }
}

/// How the error of a statement whose outcome the server's answer does
/// not tell begins.
const UNTOLD: &str = "the server's answer does not tell whether this statement was applied";

/// The error of a statement whose outcome the server's answer does not
/// tell.
fn untold() -> mongodb::error::Error {
    crate::error::raised(UNTOLD)
}

/// The error of a statement judged [`Verdict::Unheld`]: the command's
/// count says some statement it carried matched, and the read after it
/// cannot tell whether this one did.
pub(crate) fn unheld() -> mongodb::error::Error {
    crate::error::raised(format!(
        "{UNTOLD}: the update command's count of matches and the documents read back disagree, \
         and this document does not hold the statement's write (it may have landed and been \
         changed since by another writer); reload it to see"
    ))
}

/// A reply read: how many statements matched (or were inserted), which
/// were refused, and its write concern error.
fn counted(reply: BsonDocument) -> mongodb::error::Result<Counted> {
    let n = match reply.get("n") {
        Some(Bson::Int32(n)) => *n as u64,
        Some(Bson::Int64(n)) => *n as u64,
        Some(Bson::Double(n)) => *n as u64,
        _ => 0,
    };
    let mut refused = Vec::new();
    if let Ok(errors) = reply.get_array("writeErrors") {
        for e in errors {
            let Bson::Document(e) = e else { continue };
            let at = match e.get("index") {
                Some(Bson::Int32(i)) => *i as usize,
                Some(Bson::Int64(i)) => *i as usize,
                _ => continue,
            };
            let w: WriteError = crate::bson_release::from_bson(Bson::Document(e.clone()))
                .map_err(|e| crate::error::raised(e.to_string()))?;
            refused.push((at, w));
        }
    }
    let unsatisfied = match reply.get_document("writeConcernError") {
        Ok(w) => {
            let w: WriteConcernError = crate::bson_release::from_bson(Bson::Document(w.clone()))
                .map_err(|e| crate::error::raised(e.to_string()))?;
            Some(ErrorKind::Write(WriteFailure::WriteConcernError(w)).into())
        }
        Err(_) => None,
    };
    Ok(Counted {
        n,
        refused,
        unsatisfied,
    })
}

/// The size of `statement` in a command's array.
fn size(statement: &RawBson) -> usize {
    match statement {
        RawBson::Document(d) => d.as_bytes().len(),
        _ => 0,
    }
}

/// The lengths of the commands `sizes` (each statement's bytes) are sent
/// in: as few as `limits` allow, in order, each with at least one
/// statement.
pub(crate) fn split(sizes: &[usize], limits: Limits) -> Vec<usize> {
    // An array element costs its type byte, its key (up to 6 digits and a
    // NUL) besides the document; the command's own fields stay under 1 KiB.
    const PER_ITEM: usize = 8;
    const COMMAND: usize = 1024;
    let room = limits.max_bson.saturating_sub(COMMAND);
    let mut batches = Vec::new();
    let (mut count, mut bytes) = (0, 0);
    for &s in sizes {
        let s = s + PER_ITEM;
        if count > 0 && (count == limits.max_batch || bytes + s > room) {
            batches.push(count);
            (count, bytes) = (0, 0);
        }
        count += 1;
        bytes += s;
    }
    if count > 0 {
        batches.push(count);
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_is_encoded_as_bson_encodes_it() {
        let filter = doc! {
            "_id": mongodb::bson::oid::ObjectId::new(),
            "__v": 3_i64,
            "tags": { "$size": 2 },
        };
        let update = doc! {
            "$set": { "at": mongodb::bson::DateTime::from_millis(5), "x": 1.5, "s": "é" },
            "$push": { "tags": { "$each": ["a", null] } },
            "$inc": { "__v": 1 },
        };
        let mut expected = RawDocumentBuf::new();
        let q = RawDocumentBuf::try_from(&filter).unwrap();
        let u = RawDocumentBuf::try_from(&update).unwrap();
        crate::bson_release::append(&mut expected, "q", q);
        crate::bson_release::append(&mut expected, "u", u);
        let encoded = Encoded {
            q: &filter,
            u: &update,
        };
        let one = crate::codec::to_raw_sized(&encoded, 128).unwrap();
        assert_eq!(one.as_bytes(), expected.as_bytes());
    }

    #[test]
    fn batches_split_at_the_count_and_the_size() {
        let limits = Limits {
            max_batch: 3,
            max_bson: 1024 + 100,
        };
        assert_eq!(split(&[], limits), Vec::<usize>::new());
        assert_eq!(split(&[1; 7], limits), [3, 3, 1]);
        // 40 + 8 bytes each: two fit in 100, not three.
        assert_eq!(split(&[40; 5], limits), [2, 2, 1]);
        // One too large for any command goes alone.
        assert_eq!(split(&[10, 500, 10], limits), [1, 1, 1]);
        let real = Limits {
            max_batch: 100_000,
            max_bson: 16 * 1024 * 1024,
        };
        assert_eq!(split(&vec![100; 250_000], real), [100_000, 100_000, 50_000]);
    }
}
