//! Array changes, inferred the way Mongoose's array atomics record them:
//! an append is a `$push`, a clean removal a `$pullAll` / `$pull`, an
//! in-place edit a positional `$set`, anything else a `$set` of the array.
//!
//! A net diff cannot always tell an assignment from edits, nor "remove this
//! element" from "remove every element equal to it". Where it cannot, it
//! takes the reading whose update bumps the version (a whole-array `$set`),
//! so a stale copy fails instead of overwriting or mixing data.

use std::collections::HashMap;

use mongodb::bson::Bson;

use super::eq::{class, Class, Tally};
use super::{diff_document, Change, Op, Out};
use crate::codec::scan::{after_prefix, elements, Elem};
use crate::error::Error;

/// At most this many distinct values are removed by one guarded
/// `$pullAll`; more are sent as a whole array (the guard costs the server
/// one pass over the array per value).
const MAX_GUARDED_VALUES: usize = 32;

fn to_array<'a, 'b: 'a>(values: impl IntoIterator<Item = &'a Elem<'b>>) -> Result<Bson, Error> {
    let values = values.into_iter();
    // Sized once: collecting through `Result` would grow it from empty.
    let mut array = Vec::with_capacity(values.size_hint().0);
    for e in values {
        array.push(e.decode()?);
    }
    Ok(Bson::Array(array))
}

/// Diffs two arrays given as their bytes (element keys are ignored).
pub(super) fn diff_array(
    old: &[u8],
    new: &[u8],
    path: String,
    positional: bool,
    out: &mut Out,
) -> Result<(), Error> {
    if let Some(added) = appended(old, new)? {
        out.push(Change::new(Op::Push, path, to_array(&added)?, positional));
        return Ok(());
    }
    walked(old, new, path, positional, out)
}

/// The elements `new` appends to `old` when `new` starts with all of
/// `old`'s elements byte for byte (keys included, at the same offsets)
/// and holds more after them: an append, the usual change of an array,
/// which [`walked`] reads as a `$push` of exactly these elements, since
/// every element of `old` is then the same as `new`'s at its position.
/// Found by one comparison of the bytes both share and a walk of the
/// appended ones only, instead of a walk of every element of both. `None`
/// otherwise. Both arrays come from serializing values (the snapshot and
/// the value now), so the shared bytes are well formed; `new`'s length
/// and end are checked as by any walk (a malformed `new` is left to
/// [`walked`], which reports it).
fn appended<'a>(old: &[u8], new: &'a [u8]) -> Result<Option<Vec<Elem<'a>>>, Error> {
    if new.len() <= old.len() {
        return Ok(None);
    }
    let Some(mut walk) = after_prefix(new, old) else {
        return Ok(None);
    };
    let mut added = Vec::new();
    while let Some(elem) = walk.next_elem()? {
        added.push(elem);
    }
    Ok((!added.is_empty()).then_some(added))
}

/// [`diff_array`] by a walk of every element of both arrays.
fn walked(
    old: &[u8],
    new: &[u8],
    path: String,
    positional: bool,
    out: &mut Out,
) -> Result<(), Error> {
    let before = elements(old)?;
    let after = elements(new)?;
    let prefix_same = before.iter().zip(&after).all(|(b, a)| b.same(a));

    if after.len() > before.len() && prefix_same {
        out.push(Change::new(
            Op::Push,
            path,
            to_array(&after[before.len()..])?,
            positional,
        ));
        return Ok(());
    }
    if after.len() == before.len() && is_in_place(&before, &after) {
        return in_place(&before, &after, &path, out);
    }
    if after.len() < before.len() {
        if let Some(change) = removal(&before, &after, &path, positional)? {
            out.push(change);
            return Ok(());
        }
    }
    out.push(Change::new(Op::Set, path, to_array(&after)?, positional));
    Ok(())
}

/// Positional changes of an array whose elements kept their places.
fn in_place(
    before: &[Elem<'_>],
    after: &[Elem<'_>],
    path: &str,
    out: &mut Out,
) -> Result<(), Error> {
    for (i, (b, a)) in before.iter().zip(after).enumerate() {
        if b.same(a) {
            continue;
        }
        let at = format!("{path}.{i}");
        if b.is_document() && a.is_document() {
            diff_document(b.value, a.value, &at, true, out)?
        } else if b.is_array() && a.is_array() {
            // An element that is itself an array: its own in-place edits,
            // appends and removals, at `a.i.j` / `a.i`.
            diff_array(b.value, a.value, at, true, out)?
        } else {
            out.push(Change::new(Op::Set, at, a.decode()?, true).dropping(b, Some(a)))
        }
    }
    Ok(())
}

/// `true` when a same-length array was edited in place: every changed
/// sub-document kept its `_id`, no value moved to another changed position
/// (a sort, a swap, a shift), and it is not an assignment (no element kept
/// its position and none is a sub-document or an array edited in place).
fn is_in_place(before: &[Elem<'_>], after: &[Elem<'_>]) -> bool {
    let mut kept = 0;
    let mut edited_containers = 0;
    let mut changed = Vec::with_capacity(before.len());
    for (i, (b, a)) in before.iter().zip(after).enumerate() {
        if b.same(a) {
            kept += 1;
            continue;
        }
        if b.is_document() && a.is_document() {
            if !same_id(b, a) {
                // Replaced or moved: a positional edit of a stale copy
                // would land on another sub-document.
                return false;
            }
            edited_containers += 1;
        } else if b.is_array() && a.is_array() {
            edited_containers += 1;
        }
        changed.push(i);
    }
    if kept == 0 && edited_containers == 0 {
        return false;
    }
    !has_moves(before, after, &changed)
}

/// Both sub-documents have the same `_id`, or neither has one.
fn same_id(b: &Elem<'_>, a: &Elem<'_>) -> bool {
    match (b.id(), a.id()) {
        (None, None) => true,
        (Some(x), Some(y)) => x.same(&y),
        _ => false,
    }
}

/// A value now at a changed position that was at another changed position.
fn has_moves(before: &[Elem<'_>], after: &[Elem<'_>], changed: &[usize]) -> bool {
    if changed.len() < 2 {
        return false;
    }
    let mut old: HashMap<(u8, &[u8]), ()> = HashMap::with_capacity(changed.len());
    for &i in changed {
        old.insert((before[i].tag, before[i].value), ());
    }
    changed
        .iter()
        .any(|&i| old.contains_key(&(after[i].tag, after[i].value)))
}

/// A `$pullAll` / `$pull` when `after` is `before` with some elements
/// removed and, by MongoDB's equality, no element equal to a removed one
/// left (the server removes every equal element); `None` otherwise.
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
    if kept != after.len() {
        return Ok(None);
    }
    if removed.iter().all(|r| r.is_document()) {
        return pull_ids(&removed, after, path, positional);
    }
    pull_all(&removed, after, path, positional)
}

/// Removed values, none a document: `$pullAll`, guarded by the count of
/// each value the copy loaded.
fn pull_all(
    removed: &[Elem<'_>],
    after: &[Elem<'_>],
    path: &str,
    positional: bool,
) -> Result<Option<Change>, Error> {
    let mut tally = Tally::default();
    for r in removed {
        match class(r) {
            Class::Key(key) => tally.add(key, *r),
            // Documents (field order), NaN (the test server cannot pull
            // it) and values whose equality is not modelled here.
            _ => return Ok(None),
        }
        if tally.len() > MAX_GUARDED_VALUES {
            return Ok(None);
        }
    }
    for a in after {
        match class(a) {
            Class::Key(key) if tally.contains(&key) => return Ok(None),
            Class::Other => return Ok(None),
            _ => {}
        }
    }
    let value = to_array(tally.entries.iter().map(|(e, _)| e))?;
    let mut change = Change::new(Op::PullAll, path.to_string(), value, positional);
    change.counts = tally.entries.iter().map(|(_, n)| *n).collect();
    Ok(Some(change))
}

/// Removed sub-documents: `$pull` by `_id`, when each has an `_id` no kept
/// one shares and that compares without depending on field order.
fn pull_ids(
    removed: &[Elem<'_>],
    after: &[Elem<'_>],
    path: &str,
    positional: bool,
) -> Result<Option<Change>, Error> {
    let mut ids = Tally::default();
    for r in removed {
        match r.id().map(|id| (class(&id), id)) {
            Some((Class::Key(key), id)) => ids.add(key, id),
            _ => return Ok(None),
        }
    }
    for a in after {
        match a.id().map(|id| class(&id)) {
            Some(Class::Key(key)) if ids.contains(&key) => return Ok(None),
            Some(Class::Other) => return Ok(None),
            _ => {}
        }
    }
    let value = to_array(ids.entries.iter().map(|(e, _)| e))?;
    Ok(Some(Change::new(
        Op::PullIds,
        path.to_string(),
        value,
        positional,
    )))
}

#[cfg(test)]
mod tests {
    use mongodb::bson::oid::ObjectId;
    use mongodb::bson::{bson, rawdoc, Bson, RawDocumentBuf};

    use super::*;

    fn array(values: &[Bson]) -> Vec<u8> {
        let doc =
            mongodb::bson::RawDocumentBuf::try_from(&mongodb::bson::doc! { "a": values }).unwrap();
        match doc.get("a").unwrap().unwrap() {
            mongodb::bson::RawBsonRef::Array(a) => a.as_bytes().to_vec(),
            _ => unreachable!(),
        }
    }

    fn both(old: &[u8], new: &[u8]) -> (Vec<Change>, Vec<Change>) {
        let (mut fast, mut slow) = (Out::default(), Out::default());
        diff_array(old, new, "a".into(), false, &mut fast).unwrap();
        walked(old, new, "a".into(), false, &mut slow).unwrap();
        (fast.changes, slow.changes)
    }

    /// Appends, and the changes that look like them but are not (an edit
    /// before the end, a removal, nothing, an element that grew): the fast
    /// path gives what the walk of every element gives.
    #[test]
    fn an_append_found_from_the_bytes_is_the_walks_push() {
        let sub = |n: u8| bson!({ "_id": ObjectId::from_bytes([n; 12]), "t": "x" });
        let bases: Vec<Vec<Bson>> = vec![
            vec![],
            vec![bson!("a")],
            vec![bson!(1), bson!("b"), sub(1)],
            (0..120).map(|i| bson!(i)).collect(),
            vec![bson!([1, 2]), sub(2)],
        ];
        for base in bases {
            let old = array(&base);
            let mut cases = Vec::new();
            for extra in [vec![bson!("z")], vec![sub(9), bson!(null), bson!([3])]] {
                let mut grown = base.clone();
                grown.extend(extra);
                cases.push(grown);
            }
            cases.push(base.clone());
            if let Some((last, rest)) = base.split_last() {
                cases.push(rest.to_vec());
                let mut edited = rest.to_vec();
                edited.push(bson!("edited"));
                edited.push(last.clone());
                cases.push(edited);
                let mut longer = rest.to_vec();
                longer.push(bson!({ "grew": [last.clone(), last.clone()] }));
                cases.push(longer);
            }
            for case in cases {
                let new = array(&case);
                let (fast, slow) = both(&old, &new);
                assert_eq!(fast, slow, "{base:?} -> {case:?}");
            }
        }
        // The general diff of a document finds the same push.
        let old = rawdoc! { "t": ["a"] };
        let new: RawDocumentBuf = rawdoc! { "t": ["a", "b"] };
        assert_eq!(
            crate::plan::diff::diff(&old, &new).unwrap(),
            vec![Change::new(Op::Push, "t".into(), bson!(["b"]), false)]
        );
    }
}
