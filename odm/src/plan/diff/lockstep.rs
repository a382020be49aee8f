//! The usual diff of a document: both serializations hold the same keys in
//! the same order (a struct, a map whose keys did not change), so element
//! `i` of one is compared with element `i` of the other, walking both once
//! and allocating nothing. Anything else takes the general path of
//! [`diff_document`](super::diff_document), whose result this equals.

use super::{diff_value, is_awkward, join, whole, Out};
use crate::codec::scan::{common_prefix, Elem, Walk};
use crate::codec::text;
use crate::error::Error;

/// The most keys a document walked in step may have: the keys are checked
/// to be distinct pairwise, and larger documents are looked up through the
/// general path's hash table anyway.
const MAX_KEYS: usize = 32;

/// The changes from `old` to `new`, pushed to `out` exactly as
/// `diff_document` pushes them, when both documents hold the same
/// distinct keys in the same order; `Ok(false)`, having pushed nothing,
/// otherwise (the caller then takes the general path, which also reports
/// malformed bytes).
///
/// With distinct keys, the general path's lookup of element `i`'s key in
/// `old` finds element `i`, and no element of `old` is left over to unset,
/// so it makes the same calls in the same order as this walk.
pub(super) fn diff_in_step(
    old: &[u8],
    new: &[u8],
    prefix: &str,
    positional: bool,
    out: &mut Out,
) -> Result<bool, Error> {
    let Some((changed, pairs)) = changed_pairs(old, new) else {
        return Ok(false);
    };
    let start = out.len();
    let mut each = |a: Elem<'_>, b: Elem<'_>| -> Result<bool, Error> {
        if is_awkward(b.key) {
            whole(new, b.key, prefix, positional, start, out)?;
            return Ok(false);
        }
        let path = join(prefix, b.key_str()?);
        diff_value(&a, &b, path, positional, out)?;
        Ok(true)
    };
    if changed <= FEW {
        for (a, b) in pairs.into_iter().take(changed) {
            if !each(a, b)? {
                break;
            }
        }
    } else {
        // More than were kept: walk again.
        let (mut before, mut after) = (Walk::new(old)?, Walk::new(new)?);
        while let (Some(a), Some(b)) = (before.next_elem()?, after.next_elem()?) {
            if !a.same(&b) && !each(a, b)? {
                break;
            }
        }
    }
    Ok(true)
}

/// How many differing pairs are kept from the first walk.
const FEW: usize = 4;

const NONE: Elem<'static> = Elem {
    tag: 0,
    key: b"",
    value: b"",
};

/// How many pairs of elements differ, and the first [`FEW`] of them in
/// order, when both documents are well formed
/// and hold the same at most [`MAX_KEYS`] keys, distinct, in the same
/// order; `None` otherwise.
type Pairs<'a> = [(Elem<'a>, Elem<'a>); FEW];

fn changed_pairs<'a>(old: &'a [u8], new: &'a [u8]) -> Option<(usize, Pairs<'a>)> {
    let (Ok(mut before), Ok(mut after)) = (Walk::new(old), Walk::new(new)) else {
        return None;
    };
    // Up to `same`, both documents hold the same bytes at the same offsets
    // (their length prefixes aside), before the closing NUL of either: an
    // element that ends there is the same element in both, so only one
    // side is read. After it, both are read and compared.
    let same = (4 + common_prefix(&old[4..], &new[4..])).min(new.len() - 1);
    let mut keys: [&[u8]; MAX_KEYS] = [&[]; MAX_KEYS];
    let mut n = 0;
    let mut pairs = [(NONE, NONE); FEW];
    let mut changed = 0;
    // One bit per key, from its length and ends: keys whose bits differ
    // are different, so only a key whose bit is taken is compared with
    // the keys before it.
    let mut bits = 0u64;
    loop {
        let at = before.at();
        let key = match before.next_elem() {
            Ok(Some(a)) if before.at() <= same && after.at() == at => {
                after.skip_to(before.at());
                a.key
            }
            Ok(Some(a)) => match after.next_elem() {
                Ok(Some(b)) if text::same(a.key, b.key) => {
                    if !a.same(&b) {
                        if let Some(slot) = pairs.get_mut(changed) {
                            *slot = (a, b);
                        }
                        changed += 1;
                    }
                    a.key
                }
                _ => return None,
            },
            Ok(None) => match after.next_elem() {
                Ok(None) => break,
                _ => return None,
            },
            Err(_) => return None,
        };
        if n == MAX_KEYS {
            return None;
        }
        let bit = key_bit(key);
        if bits & bit != 0 && keys[..n].contains(&key) {
            return None;
        }
        bits |= bit;
        keys[n] = key;
        n += 1;
    }
    Some((changed, pairs))
}

/// A bit that equal keys share.
fn key_bit(key: &[u8]) -> u64 {
    let first = key.first().map_or(0, |&b| usize::from(b));
    let last = key.last().map_or(0, |&b| usize::from(b));
    1 << ((key.len() ^ first.wrapping_mul(5) ^ last.wrapping_mul(17)) & 63)
}

#[cfg(test)]
mod tests {
    use mongodb::bson::rawdoc;

    use super::*;

    fn bytes(doc: &mongodb::bson::RawDocumentBuf) -> Vec<u8> {
        doc.as_bytes().to_vec()
    }

    #[test]
    fn same_keys_in_order_walk_in_step() {
        let a = bytes(&rawdoc! { "a": 1, "b": "x" });
        let b = bytes(&rawdoc! { "a": 2, "b": "x" });
        assert!(changed_pairs(&a, &b).is_some());
    }

    #[test]
    fn elements_in_the_common_prefix_are_read_once_and_still_counted() {
        let a = bytes(&rawdoc! { "a": 1, "b": "xy", "c": 3, "d": [1], "e": 5 });
        let b = bytes(&rawdoc! { "a": 1, "b": "xy", "c": 4, "d": [1, 2], "e": 5 });
        let (changed, pairs) = changed_pairs(&a, &b).unwrap();
        assert_eq!(changed, 2);
        assert_eq!(
            (pairs[0].0.key, pairs[0].1.value),
            (&b"c"[..], &4i32.to_le_bytes()[..])
        );
        assert_eq!(pairs[1].1.key, b"d");
        // A key repeated inside the shared bytes still sends it the general way.
        let mut dup = mongodb::bson::RawDocumentBuf::new();
        let mut dup2 = mongodb::bson::RawDocumentBuf::new();
        for (doc, last) in [(&mut dup, 1), (&mut dup2, 2)] {
            crate::bson_release::append(doc, "k", 1);
            crate::bson_release::append(doc, "k", 1);
            crate::bson_release::append(doc, "z", last);
        }
        assert!(changed_pairs(dup.as_bytes(), dup2.as_bytes()).is_none());
        // A longer new document shares the old one's elements but not its end.
        let short = bytes(&rawdoc! { "a": 1 });
        let long = bytes(&rawdoc! { "a": 1, "b": 2 });
        assert!(changed_pairs(&short, &long).is_none());
        assert!(changed_pairs(&long, &short).is_none());
    }

    #[test]
    fn other_orders_counts_and_duplicates_take_the_general_path() {
        let ab = bytes(&rawdoc! { "a": 1, "b": 2 });
        let ba = bytes(&rawdoc! { "b": 2, "a": 1 });
        let a = bytes(&rawdoc! { "a": 1 });
        assert!(changed_pairs(&ab, &ba).is_none());
        assert!(changed_pairs(&ab, &a).is_none());
        assert!(changed_pairs(&a, &ab).is_none());
        // Two "a" keys: the general path compares both with the first.
        let mut dup = mongodb::bson::RawDocumentBuf::new();
        crate::bson_release::append(&mut dup, "a", 1);
        crate::bson_release::append(&mut dup, "a", 2);
        assert!(changed_pairs(dup.as_bytes(), dup.as_bytes()).is_none());
        let mut many = mongodb::bson::RawDocumentBuf::new();
        for i in 0..=MAX_KEYS {
            crate::bson_release::append(&mut many, &format!("k{i}"), 1);
        }
        assert!(changed_pairs(many.as_bytes(), many.as_bytes()).is_none());
        assert!(changed_pairs(&ab[..ab.len() - 1], &ab).is_none());
    }
}
