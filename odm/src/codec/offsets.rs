//! Where each top-level element of a document starts, kept beside a
//! snapshot: noted by the first patch of it (which reads every element in
//! turn), so the next patches find the element of a field written without
//! reading the elements before it (`codec::rawser::patch`), and moved by
//! each patch applied instead of read again. A snapshot written whole has
//! them when the serializer that wrote it noted them (`rawser::splice`),
//! else none until a patch of it reads them.

use std::sync::OnceLock;

/// The offsets of a document's top-level elements, in order, then the
/// offset of its closing NUL; noted by the first patch of it that reads
/// them all.
#[derive(Debug, Clone, Default)]
pub(crate) struct Offsets(OnceLock<Vec<u32>>);

impl Offsets {
    /// Not known yet.
    pub fn new() -> Offsets {
        Offsets(OnceLock::new())
    }

    /// Already known (`starts` of the document they will be used with:
    /// moved from earlier offsets, or noted as it was written).
    pub fn of_starts(starts: Vec<u32>) -> Offsets {
        Offsets(OnceLock::from(starts))
    }

    /// The offsets, once known.
    pub fn known(&self) -> Option<&[u32]> {
        self.0.get().map(Vec::as_slice)
    }

    /// Notes `starts`, the offsets of the document these are of (read by
    /// a patch of it), unless known already.
    pub fn remember(&self, starts: Vec<u32>) {
        let _ = self.0.set(starts);
    }

    /// The offsets of the document made of the one these are of by
    /// `moves` (`codec::rawser::patch::Patch::moves`), when these are
    /// known (else not known either).
    pub fn moved(self, moves: impl IntoIterator<Item = (usize, i64)>) -> Offsets {
        match self.0.into_inner() {
            Some(mut offsets) => match shift(&mut offsets, moves) {
                Some(()) => Offsets::of_starts(offsets),
                None => Offsets::new(),
            },
            None => Offsets::new(),
        }
    }
}

/// One walk of `doc`: each element's offset, then the closing NUL's.
#[cfg(test)]
pub(crate) fn starts(doc: &[u8]) -> Option<Vec<u32>> {
    let mut walk = crate::codec::scan::Walk::new(doc).ok()?;
    let mut out = Vec::new();
    loop {
        out.push(u32::try_from(walk.at()).ok()?);
        match walk.next_elem() {
            Ok(Some(_)) => {}
            Ok(None) => return Some(out),
            Err(_) => return None,
        }
    }
}

/// `offsets` moved by `moves`, in place: each `(start, grown)` says the
/// element at `start` grew by `grown` bytes (in the document's order), so
/// the offsets after it move by that much. `None` (`offsets` then
/// unusable) when a move starts at no element, or an offset leaves `u32`.
fn shift(offsets: &mut [u32], moves: impl IntoIterator<Item = (usize, i64)>) -> Option<()> {
    // Pieces are in the document's order: each moves every later offset.
    let mut moved: i64 = 0;
    let mut next = 0;
    let move_to = |offsets: &mut [u32], moved: i64| -> Option<()> {
        if moved != 0 {
            for offset in offsets {
                *offset = u32::try_from(i64::from(*offset) + moved).ok()?;
            }
        }
        Some(())
    };
    for (start, grown) in moves {
        let start = u32::try_from(start).ok()?;
        let k = next + offsets[next..].iter().position(|&s| s == start)?;
        move_to(&mut offsets[next..=k], moved)?;
        moved += grown;
        next = k + 1;
    }
    move_to(&mut offsets[next..], moved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::rawdoc;

    #[test]
    fn the_offsets_of_a_document_are_its_elements_and_its_end() {
        let doc = rawdoc! { "a": 1_i32, "bb": "x" };
        let bytes = doc.as_bytes();
        // 4 (length), "a": 1 + 2 + 4 = 7, "bb": 1 + 3 + 4 + 2 = 10.
        assert_eq!(starts(bytes), Some(vec![4, 11, 21]));
        assert_eq!(bytes.len(), 22);
        assert_eq!(starts(rawdoc! {}.as_bytes()), Some(vec![4]));
        assert_eq!(starts(&[5, 0, 0, 0, 1]), None);
    }
}
