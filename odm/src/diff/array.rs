//! Array changes, inferred the way Mongoose's array atomics record them:
//! an append is a `$push`, a clean removal a `$pullAll` / `$pull`, an
//! in-place edit a positional `$set`, anything else a `$set` of the array.

use mongodb::bson::Bson;

use super::scan::{elements, Elem};
use super::{diff_document, Change, Op};
use crate::error::Error;

fn to_array(values: &[Elem<'_>]) -> Result<Bson, Error> {
    values
        .iter()
        .map(|e| e.decode())
        .collect::<Result<Vec<_>, _>>()
        .map(Bson::Array)
}

/// Diffs two arrays given as their bytes (element keys are ignored).
pub(super) fn diff_array(
    old: &[u8],
    new: &[u8],
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
        .all(|(b, a)| b.same(a));

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
            if b.same(a) {
                continue;
            }
            let at = format!("{path}.{i}");
            if b.is_document() && a.is_document() {
                diff_document(b.value, a.value, &at, true, out)?
            } else if b.is_array() && a.is_array() {
                // An element that is itself an array: its own in-place
                // edits, appends and removals, at `a.i.j` / `a.i`.
                diff_array(b.value, a.value, at, true, out)?
            } else {
                out.push(Change {
                    op: Op::Set,
                    path: at,
                    value: a.decode()?,
                    positional: true,
                })
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
fn has_moves(before: &[Elem<'_>], after: &[Elem<'_>]) -> bool {
    let changed: Vec<usize> = (0..before.len())
        .filter(|&i| !before[i].same(&after[i]))
        .collect();
    changed.len() >= 2
        && changed
            .iter()
            .any(|&i| changed.iter().any(|&j| j != i && after[i].same(&before[j])))
}

/// A `$pullAll` / `$pull` when `after` is `before` with some values removed
/// and no occurrence of a removed value left; `None` otherwise.
fn removal(
    before: &[Elem<'_>],
    after: &[Elem<'_>],
    path: &str,
    positional: bool,
) -> Result<Option<Change>, Error> {
    let mut removed: Vec<Elem<'_>> = Vec::new();
    let mut kept = 0;
    for b in before {
        if kept < after.len() && b.same(&after[kept]) {
            kept += 1;
        } else {
            removed.push(*b);
        }
    }
    if kept != after.len() || removed.iter().any(|r| after.iter().any(|a| r.same(a))) {
        return Ok(None);
    }
    let mut distinct: Vec<Elem<'_>> = Vec::new();
    if removed.iter().all(|r| !r.is_document()) {
        for r in removed {
            if !distinct.iter().any(|d| d.same(&r)) {
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
        let Some(id) = r.id() else {
            return Ok(None);
        };
        if after.iter().any(|a| a.id().is_some_and(|k| k.same(&id))) {
            return Ok(None);
        }
        if !distinct.iter().any(|d| d.same(&id)) {
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
