//! The patch of a value (`codec::rawser::patch`) and its diff are the
//! whole serialization and the whole diff, on the random values and edits
//! of `codec::rawser::splice_tests`.

use crate::codec::rawser::splice::Splice;
use crate::codec::rawser::splice_tests::{tail, unchanged, whole, Rng, NAMES};
use crate::codec::tail::TailOut;

/// A patch of the earlier bytes, applied to them, is the whole
/// serialization; its diff is the whole diff, in the same order; the
/// offsets of the earlier elements it moves are those of the whole; a
/// value whose top-level keys differ (a field skipped now or before) is
/// not patched.
#[test]
fn patched_bytes_and_their_diff_are_the_whole_ones() {
    let mut rng = Rng(0x37);
    let (mut patched, mut refused, mut changed, mut appended) = (0, 0, 0, 0);
    for _ in 0..20_000 {
        let old = rng.model();
        let mut new = old.clone();
        rng.edit(&mut new);
        let (from, to) = (whole(&old), whole(&new));
        let known = unchanged(&new, &old);
        let splice = Splice {
            from: &from,
            names: NAMES,
            unchanged: &known,
        };
        let keys = |doc: &[u8]| -> Vec<String> {
            let doc = mongodb::bson::RawDocument::from_bytes(doc).unwrap();
            doc.iter().map(|e| e.unwrap().0.to_string()).collect()
        };
        // Made reading every element, and by the offsets known: the same
        // patch, or the same refusal; the first notes the offsets. Each
        // with the appended sequences' tails written by the model, and
        // by serde passing over their first elements: the same again.
        let starts = crate::codec::offsets::starts(&from).expect("a document walks");
        let tails = |i, n, out: &mut TailOut<'_>| tail(&new, i, n, out);
        let serde = |_, _, _: &mut TailOut<'_>| None;
        let walked = crate::codec::offsets::Offsets::new();
        let first = crate::codec::rawser::patch::to_patch(&new, &splice, &walked, &tails);
        let offsets = crate::codec::offsets::Offsets::new();
        offsets.remember(starts.clone());
        let again = crate::codec::rawser::patch::to_patch(&new, &splice, &offsets, &tails);
        assert_eq!(again, first, "{old:?} -> {new:?}");
        let unread = crate::codec::offsets::Offsets::new();
        let passed = crate::codec::rawser::patch::to_patch(&new, &splice, &unread, &serde);
        assert_eq!(passed, first, "{old:?} -> {new:?}");
        let passed = crate::codec::rawser::patch::to_patch(&new, &splice, &offsets, &serde);
        assert_eq!(passed, first, "{old:?} -> {new:?}");
        if first.is_some() {
            assert_eq!(walked.known(), Some(&starts[..]));
        }
        let Some(patch) = first else {
            let edited = known.prefixes.iter().any(|&(i, _)| !known.prefix_of(i).1);
            assert!(edited || keys(&from) != keys(&to), "{old:?} -> {new:?}");
            refused += 1;
            continue;
        };
        patched += 1;
        assert_eq!(patch.applied(&from), to, "{old:?} -> {new:?}");
        let fast = super::diff_patch(&from, &patch)
            .unwrap()
            .expect("plain keys");
        let slow = super::diff_out(
            mongodb::bson::RawDocument::from_bytes(&from).unwrap(),
            mongodb::bson::RawDocument::from_bytes(&to).unwrap(),
        )
        .unwrap();
        assert_eq!(fast.changes, slow.changes, "{old:?} -> {new:?}");
        assert_eq!(fast.reordered, slow.reordered);
        // Only what changed is left, and it still makes the whole.
        assert_eq!(patch.pieces.is_empty(), slow.changes.is_empty());
        assert_eq!(patch.applied(&from), to);
        assert_eq!(patch.apply(from.clone()), to);
        // The offsets moved by the patch are those of the whole.
        let moved = offsets.moved(patch.moves());
        assert_eq!(moved.known(), crate::codec::offsets::starts(&to).as_deref());
        changed += patch.pieces.len();
        appended += patch.pieces.iter().filter(|p| p.append.is_some()).count();
    }
    assert!(
        patched > 10_000 && refused > 3_000 && changed > 3_000 && appended > 1_000,
        "{patched} {refused} {changed} {appended}"
    );
}
