//! Array changes, inferred the way Mongoose's array atomics record them:
//! an append is a `$push`, a clean removal a `$pullAll` / `$pull`, an
//! in-place edit a positional `$set`, anything else a `$set` of the array.

use mongodb::bson::raw::{RawArray, RawBsonRef};
use mongodb::bson::Bson;

use super::{diff_document, id_of, is_document, raw_error, same, to_bson, Change, Op};
use crate::error::Error;

fn elements(array: &RawArray) -> Result<Vec<RawBsonRef<'_>>, Error> {
    array
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(raw_error)
}

fn to_array(values: &[RawBsonRef<'_>]) -> Result<Bson, Error> {
    values
        .iter()
        .map(|v| to_bson(*v))
        .collect::<Result<Vec<_>, _>>()
        .map(Bson::Array)
}

pub(super) fn diff_array(
    old: &RawArray,
    new: &RawArray,
    path: String,
    positional: bool,
    out: &mut Vec<Change>,
) -> Result<(), Error> {
    let before = elements(old)?;
    let after = elements(new)?;
    let common = before.len().min(after.len());
    let prefix_same = before
        .iter()
        .zip(&after)
        .take(common)
        .all(|(b, a)| same(*b, *a));

    if after.len() > before.len() && prefix_same {
        out.push(Change {
            op: Op::Push,
            path,
            value: to_array(&after[before.len()..])?,
            positional,
        });
        return Ok(());
    }
    if after.len() == before.len() && !has_moves(&before, &after) {
        for (i, (b, a)) in before.iter().zip(&after).enumerate() {
            if same(*b, *a) {
                continue;
            }
            let at = format!("{path}.{i}");
            match (b, a) {
                (RawBsonRef::Document(bd), RawBsonRef::Document(ad)) => {
                    diff_document(bd, ad, &at, true, out)?
                }
                // An element that is itself an array: its own in-place
                // edits, appends and removals, at `a.i.j` / `a.i`.
                (RawBsonRef::Array(ba), RawBsonRef::Array(aa)) => {
                    diff_array(ba, aa, at, true, out)?
                }
                _ => out.push(Change {
                    op: Op::Set,
                    path: at,
                    value: to_bson(*a)?,
                    positional: true,
                }),
            }
        }
        return Ok(());
    }
    if after.len() < before.len() {
        if let Some(change) = removal(&before, &after, &path, positional)? {
            out.push(change);
            return Ok(());
        }
    }
    out.push(Change {
        op: Op::Set,
        path,
        value: to_array(&after)?,
        positional,
    });
    Ok(())
}

/// `true` when values moved between positions (a sort, a swap, a shift
/// with an append): the positions changed, not only the values, so the
/// array is sent whole. A changed element whose new value left another
/// changed position is such a move.
fn has_moves(before: &[RawBsonRef<'_>], after: &[RawBsonRef<'_>]) -> bool {
    let changed: Vec<usize> = (0..before.len())
        .filter(|&i| !same(before[i], after[i]))
        .collect();
    changed.len() >= 2
        && changed
            .iter()
            .any(|&i| changed.iter().any(|&j| j != i && same(after[i], before[j])))
}

/// A `$pullAll` / `$pull` when `after` is `before` with some values removed
/// and no occurrence of a removed value left; `None` otherwise.
fn removal(
    before: &[RawBsonRef<'_>],
    after: &[RawBsonRef<'_>],
    path: &str,
    positional: bool,
) -> Result<Option<Change>, Error> {
    let mut removed: Vec<RawBsonRef<'_>> = Vec::new();
    let mut kept = 0;
    for b in before {
        if kept < after.len() && same(*b, after[kept]) {
            kept += 1;
        } else {
            removed.push(*b);
        }
    }
    if kept != after.len() || removed.iter().any(|r| after.iter().any(|a| same(*r, *a))) {
        return Ok(None);
    }
    let mut distinct: Vec<RawBsonRef<'_>> = Vec::new();
    if removed.iter().all(|r| !is_document(*r)) {
        for r in removed {
            if !distinct.iter().any(|d| same(*d, r)) {
                distinct.push(r);
            }
        }
        return Ok(Some(Change {
            op: Op::PullAll,
            path: path.to_string(),
            value: to_array(&distinct)?,
            positional,
        }));
    }
    // Sub-documents are pulled by `_id`: every removed one needs an id, and
    // no kept one may share it (the pull would take it too).
    for r in &removed {
        let Some(id) = id_of(*r) else {
            return Ok(None);
        };
        if after.iter().any(|a| id_of(*a).is_some_and(|k| same(k, id))) {
            return Ok(None);
        }
        if !distinct.iter().any(|d| same(*d, id)) {
            distinct.push(id);
        }
    }
    Ok(Some(Change {
        op: Op::PullIds,
        path: path.to_string(),
        value: to_array(&distinct)?,
        positional,
    }))
}
