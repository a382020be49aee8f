//! Which statements of an `update` command matched, when the server says
//! only how many did (`n`): pure rules, from the count and one read of the
//! statements' documents after the write.
//!
//! The count is certain; what is read is only evidence, used so that no
//! `Doc` is committed unless the server holds exactly it, and none whose
//! write may have landed is told a plain miss:
//! - `n == 0`: every statement missed; `n ==` the statements sent (less
//!   the refused): every one landed. No read is needed for either.
//! - A statement that bumps the version and finds the stored version not
//!   above the one it loaded certainly missed (versions only grow). If the
//!   others are exactly `n`, they all landed.
//! - Else a statement whose document is read exactly as its `Doc` would
//!   be after it (every field, and the version it bumps to) is told it
//!   landed: committing it makes memory equal the stored document, even if
//!   another writer wrote the very same document.
//! - Every other statement is told it missed, unless those held documents
//!   are not exactly `n` (another writer changed a document after the
//!   batch, or wrote the very same one): then it is [`Verdict::Unheld`],
//!   told in doubt and its `Doc` left in doubt, so a retry that bumps the
//!   version checks it and cannot apply a write twice. It is not told a
//!   miss: a caller that reloads on a miss and applies its change again
//!   would apply it twice.

use std::borrow::Cow;

use mongodb::bson::raw::RawDocument;
use mongodb::bson::{Bson, Document};

use crate::codec::version_key::FENCE;

/// What one update statement leaves in its document if it lands.
#[derive(Debug, Clone)]
pub(crate) struct Expect<'a> {
    /// The version the `Doc` loaded, when the statement bumps it (to one
    /// more).
    pub bumps_from: Option<i64>,
    /// The whole document after the write, less the version key and the
    /// fence: the value as it will be committed, borrowed (read into a
    /// `Document` only when a read is compared with it).
    pub whole: Cow<'a, RawDocument>,
    /// The token a fenced statement stores in the fence (`__fence`); an
    /// unfenced one leaves the stored fence as it was, so it is not
    /// compared.
    pub fence: Option<i64>,
    /// For a model with a schema version: its key, and the schema version
    /// the document holds after the statement (the model's).
    pub schema: Option<(&'static str, i64)>,
}

/// What became of one statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Landed,
    Missed,
    /// It may have landed and been overwritten since: told in doubt.
    Unheld,
    Unknown,
}

/// Whether the verdicts of a command that matched `n` of its `live`
/// (sent, not refused) statements need a read.
pub(crate) fn needs_read(n: u64, live: usize) -> bool {
    n != 0 && n != live as u64
}

/// The verdicts without a read, when [`needs_read`] is false.
pub(crate) fn without_read(n: u64, live: usize) -> Verdict {
    if n == 0 {
        Verdict::Missed
    } else if n == live as u64 {
        Verdict::Landed
    } else {
        Verdict::Unknown
    }
}

/// The verdict of each of the live statements of one command that matched
/// `n`, from what each expects and its document as read after the write
/// (`None`: not found). `key` is the model's version key.
pub(crate) fn decide(
    n: u64,
    live: &[(&Expect<'_>, Option<&Document>)],
    key: Option<&str>,
) -> Vec<Verdict> {
    if !needs_read(n, live.len()) {
        return vec![without_read(n, live.len()); live.len()];
    }
    let n = n as usize;
    let version = |d: &Document| key.map_or(0, |k| number(d.get(k)).unwrap_or(0.0) as i64);
    let certain_miss: Vec<bool> = live
        .iter()
        .map(|(e, d)| match (e.bumps_from, d, key) {
            (Some(from), Some(d), Some(_)) => version(d) <= from,
            _ => false,
        })
        .collect();
    let open = certain_miss.iter().filter(|m| !**m).count();
    if n > open {
        // More matched than could have: the read cannot be trusted.
        return vec![Verdict::Unknown; live.len()];
    }
    let landed_if = |pick: &dyn Fn(usize) -> bool| {
        (0..live.len())
            .map(|i| match pick(i) {
                true => Verdict::Landed,
                false => Verdict::Missed,
            })
            .collect()
    };
    if n == open {
        return landed_if(&|i| !certain_miss[i]);
    }
    let holds: Vec<bool> = live
        .iter()
        .zip(&certain_miss)
        .map(|((e, d), miss)| !miss && d.is_some_and(|d| holds_write(e, d, key)))
        .collect();
    if holds.iter().filter(|h| **h).count() == n {
        return landed_if(&|i| holds[i]);
    }
    (0..live.len())
        .map(|i| match (certain_miss[i], holds[i]) {
            (true, _) => Verdict::Missed,
            (false, true) => Verdict::Landed,
            (false, false) => Verdict::Unheld,
        })
        .collect()
}

/// Whether `stored` is the document `expect` leaves: every field the same
/// (the top level in any order), the version it bumps to, and the fence
/// it stores.
fn holds_write(expect: &Expect<'_>, stored: &Document, key: Option<&str>) -> bool {
    if let (Some(from), Some(k)) = (expect.bumps_from, key) {
        if number(stored.get(k)) != Some((from + 1) as f64) {
            return false;
        }
    }
    if let Some(token) = expect.fence {
        if number(stored.get(FENCE)) != Some(token as f64) {
            return false;
        }
    }
    let schema_key = expect.schema.map(|(k, _)| k);
    if let Some((k, version)) = expect.schema {
        if number(stored.get(k)) != Some(version as f64) {
            return false;
        }
    }
    let others = stored
        .keys()
        .filter(|k| {
            Some(k.as_str()) != key
                && !crate::codec::version_key::is_odm_key(k.as_bytes())
                && Some(k.as_str()) != schema_key
        })
        .count();
    // A value odm serialized always reads; one that does not never holds.
    let Ok(whole) = Document::try_from(&*expect.whole) else {
        return false;
    };
    others == whole.len()
        && whole
            .iter()
            .all(|(name, value)| stored.get(name).is_some_and(|s| same(value, s)))
}

/// BSON equality as the server's: numbers by value, whatever their type.
pub(crate) fn same(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(vx, vy)| same(vx, vy))
        }
        _ => match (number(Some(a)), number(Some(b))) {
            (Some(x), Some(y)) => x == y || (x.is_nan() && y.is_nan()),
            _ => a == b,
        },
    }
}

fn number(value: Option<&Bson>) -> Option<f64> {
    match value? {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(n) => Some(*n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use mongodb::bson::{doc, rawdoc};

    use super::*;

    fn bumping(from: i64, score: i32) -> Expect<'static> {
        Expect {
            bumps_from: Some(from),
            whole: Cow::Owned(rawdoc! { "_id": 1, "score": score }),
            fence: None,
            schema: None,
        }
    }

    fn run(n: u64, cases: &[(Expect, Option<Document>)]) -> Vec<Verdict> {
        let live: Vec<_> = cases.iter().map(|(e, d)| (e, d.as_ref())).collect();
        decide(n, &live, Some("__v"))
    }

    use Verdict::*;

    #[test]
    fn the_count_alone_decides_none_and_all() {
        assert!(!needs_read(0, 3) && !needs_read(3, 3) && needs_read(2, 3));
        let cases = [(bumping(0, 1), None), (bumping(0, 2), None)];
        assert_eq!(run(0, &cases), [Missed, Missed]);
        assert_eq!(run(2, &cases), [Landed, Landed]);
    }

    #[test]
    fn a_version_not_above_the_loaded_one_is_a_certain_miss() {
        // The second still holds version 3: it missed, so the other landed,
        // though another writer has since changed its score.
        let cases = [
            (bumping(0, 1), Some(doc! { "_id": 1, "__v": 2, "score": 9 })),
            (bumping(3, 2), Some(doc! { "_id": 1, "__v": 3, "score": 0 })),
        ];
        assert_eq!(run(1, &cases), [Landed, Missed]);
    }

    #[test]
    fn a_stale_copy_bumped_by_another_writer_is_told_by_what_it_wrote() {
        // Both at version 1: the first holds its score (it landed), the
        // second was bumped by another writer before the batch.
        let cases = [
            (
                bumping(0, 1),
                Some(doc! { "score": 1.0, "__v": 1i64, "_id": 1 }),
            ),
            (bumping(0, 2), Some(doc! { "_id": 1, "__v": 1, "score": 0 })),
            (bumping(0, 3), None),
            // Not the whole document: another field changed.
            (
                bumping(0, 4),
                Some(doc! { "_id": 1, "__v": 1, "score": 4, "x": 1 }),
            ),
        ];
        assert_eq!(run(1, &cases), [Landed, Missed, Missed, Missed]);
    }

    #[test]
    fn evidence_that_disagrees_with_the_count_leaves_the_misses_in_doubt() {
        let cases = [
            (bumping(0, 1), Some(doc! { "_id": 1, "__v": 1, "score": 1 })),
            (bumping(0, 2), Some(doc! { "_id": 1, "__v": 1, "score": 2 })),
            (bumping(4, 3), Some(doc! { "_id": 1, "__v": 4, "score": 0 })),
            (bumping(0, 4), Some(doc! { "_id": 1, "__v": 1, "score": 0 })),
        ];
        // Two hold their writes (one was written by another writer), but
        // only one matched: both are as stored, the other open one may
        // have been overwritten.
        assert_eq!(run(1, &cases), [Landed, Landed, Missed, Unheld]);
        // Two matched, one held: the other landed and was overwritten.
        let overwritten = &cases[..2];
        let overwritten = [
            (overwritten[0].0.clone(), overwritten[0].1.clone()),
            (bumping(0, 9), Some(doc! { "_id": 1, "__v": 2, "score": 5 })),
            (bumping(0, 8), Some(doc! { "_id": 1, "__v": 1, "score": 0 })),
        ];
        assert_eq!(run(2, &overwritten), [Landed, Unheld, Unheld]);
        // More matched than the read leaves open.
        let two_misses = [
            (bumping(0, 1), Some(doc! { "_id": 1, "__v": 1, "score": 1 })),
            (bumping(2, 2), Some(doc! { "_id": 1, "__v": 2, "score": 2 })),
            (bumping(4, 3), Some(doc! { "_id": 1, "__v": 4, "score": 0 })),
            (bumping(0, 4), Some(doc! { "_id": 1, "__v": 1, "score": 4 })),
        ];
        assert_eq!(run(3, &two_misses), [Unknown; 4]);
        // All matched: the count wins over a read that came too late.
        assert_eq!(run(4, &two_misses), [Landed; 4]);
    }

    #[test]
    fn a_removed_field_and_an_unversioned_model() {
        let unset = Expect {
            bumps_from: None,
            whole: Cow::Owned(rawdoc! { "_id": 1, "tags": ["a"] }),
            fence: None,
            schema: None,
        };
        let cases = [
            (unset.clone(), Some(doc! { "tags": ["a"], "_id": 1 })),
            (
                unset.clone(),
                Some(doc! { "_id": 1, "tags": ["a"], "avatar": "x" }),
            ),
        ];
        let live: Vec<_> = cases.iter().map(|(e, d)| (e, d.as_ref())).collect();
        assert_eq!(decide(1, &live, None), [Landed, Missed]);
    }

    #[test]
    fn the_fence_is_compared_only_when_the_statement_stores_it() {
        let fenced = |token| Expect {
            fence: Some(token),
            ..bumping(0, 1)
        };
        let stored = doc! { "_id": 1, "__v": 1, "score": 1, "__fence": 7_i64 };
        let cases = [
            (fenced(7), Some(stored.clone())),
            // Another holder's token: not this statement's write.
            (fenced(6), Some(stored.clone())),
            // Unfenced: a fence stored earlier is no field of the value.
            (bumping(0, 1), Some(stored.clone())),
            (bumping(0, 2), Some(doc! { "_id": 1, "__v": 1, "score": 0 })),
        ];
        assert_eq!(run(2, &cases), [Landed, Missed, Landed, Missed]);
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(same(&Bson::Int32(1), &Bson::Double(1.0)));
        assert!(same(&Bson::Double(f64::NAN), &Bson::Double(f64::NAN)));
        assert!(!same(&Bson::Int32(1), &Bson::String("1".into())));
        assert!(same(
            &Bson::Document(doc! { "a": 1i64, "b": [1] }),
            &Bson::Document(doc! { "a": 1, "b": [1.0] })
        ));
        assert!(!same(
            &Bson::Document(doc! { "a": 1, "b": 2 }),
            &Bson::Document(doc! { "b": 2, "a": 1 })
        ));
    }
}
