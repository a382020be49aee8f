//! The diff of a value written as a patch of the snapshot
//! (`codec::rawser::patch`): only the written fields are compared, each
//! with the snapshot's element it replaces. Both documents then hold the
//! same keys in the same order, and every field not written is the same
//! in both, so the changes are those [`diff_out`](super::diff_out) finds
//! between the snapshot and the patched snapshot, in the same order.

use super::{diff_value, is_awkward, Change, Op, Out};
use crate::codec::rawser::patch::Patch;
use crate::codec::scan::{Elem, Walk};
use crate::error::Error;
use mongodb::bson::Bson;

/// The changes from `old` (the snapshot) to `old` patched by `patch`,
/// whose pieces are all changed fields (the patch drops a field written as
/// it was). `None` when a written key cannot be part of an update path:
/// the whole diff reports it.
pub(crate) fn diff_patch(old: &[u8], patch: &Patch) -> Result<Option<Out>, Error> {
    let mut out = Out::default();
    let (before, after) = (Walk::new(old)?, Walk::new(&patch.written)?);
    for piece in &patch.pieces {
        let a = element(&before, piece.old.start)?;
        if piece.append.is_some() {
            // What the whole diff finds of an array that starts with all
            // of the earlier one's elements and holds more: a push of
            // those (`array::diff_array`).
            let added = appended(&patch.written[piece.new.clone()])?;
            let path = a.key_str()?.to_string();
            out.push(Change::new(Op::Push, path, added, false));
            continue;
        }
        let b = element(&after, piece.new.start)?;
        if is_awkward(b.key) {
            return Ok(None);
        }
        diff_value(&a, &b, b.key_str()?.to_string(), false, &mut out)?;
    }
    Ok(Some(out))
}

/// The element of `walk`'s document that starts at offset `at`.
fn element<'a>(walk: &Walk<'a>, at: usize) -> Result<Elem<'a>, Error> {
    let mut walk = walk.clone();
    walk.skip_to(at);
    walk.next_elem()?
        .ok_or_else(|| super::raw_error("a patch's piece past its document"))
}

/// The values of `elements` (array elements, one after the other).
fn appended(elements: &[u8]) -> Result<Bson, Error> {
    let len = i32::try_from(elements.len() + 5).map_err(super::raw_error)?;
    let mut array = Vec::with_capacity(elements.len() + 5);
    array.extend_from_slice(&len.to_le_bytes());
    array.extend_from_slice(elements);
    array.push(0);
    let mut walk = Walk::new(&array)?;
    let mut values = Vec::new();
    while let Some(elem) = walk.next_elem()? {
        values.push(elem.decode()?);
    }
    Ok(Bson::Array(values))
}
