//! A value written as a patch of its earlier serialization: only the
//! top-level fields not known unchanged (`codec::same`) are serialized,
//! each beside the range of the earlier element it replaces. Applying the
//! patch to the earlier bytes gives byte for byte what
//! [`to_vec`](super::to_vec) writes, without writing (or copying) the
//! unchanged fields at all: a save of one scalar of a 250 KB document
//! serializes the scalar, not the document.
//!
//! An array appended to (its first elements known to be all of the
//! earlier array's) is written as its new elements only, which the patch
//! inserts at the end of the earlier array.
//!
//! Only a value with the earlier document's top-level keys, in its order,
//! is patched: a field the value now skips or adds (`skip_serializing_if`)
//! gives up, and the caller serializes the whole value (so does a value
//! with an array edited after its unchanged first elements).

use std::ops::Range;

use serde::ser::{self, Serialize};

use super::compound::Struct;
use super::splice::{Prefix, Prefixed, Splice};
use super::tail::Elements;
use super::top::{EachField, Top};
use super::{short, GiveUp, Result, Writer};
use crate::codec::offsets::Offsets;
use crate::codec::same::bit;
use crate::codec::scan::Walk;
use crate::codec::tail::TailOut;

/// The top-level fields of a value that may differ from an earlier
/// serialization of it, and where each stands in it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Patch {
    /// A document of the written fields, in the value's order.
    pub written: Vec<u8>,
    /// One per written field: its element in `written` (type, key and
    /// value), and the range of the earlier element of the same key.
    pub pieces: Vec<Piece>,
}

/// One written field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Piece {
    pub new: Range<usize>,
    pub old: Range<usize>,
    /// The piece is elements appended to the earlier array `old`, not an
    /// element in place of it: where that array's length is.
    pub append: Option<usize>,
}

/// `value` written as a patch of `splice.from`: the fields `splice` marks
/// unchanged are not written, the others are, and those written as they
/// were are dropped; a sequence whose first elements are all of the
/// earlier array's is written as the elements after them (an append).
/// `None` when `bson` must serialize the value (see the module docs of
/// `rawser`), when its top-level keys are not those of `splice.from`, in
/// its order, or when `splice` knows the first elements of a sequence
/// unchanged and then others changed (the splice copies them once; a
/// patch would copy them into the piece, then into the snapshot).
///
/// `offsets` are those of `splice.from`'s elements (`codec::offsets`).
/// Once known, a field known unchanged is passed over without reading its
/// element; until then every element is read in turn, and a patch made
/// notes their offsets.
pub(crate) fn to_patch<T: Serialize + ?Sized>(
    value: &T,
    splice: &Splice<'_>,
    offsets: &Offsets,
    tail: &Tails<'_>,
) -> Option<Patch> {
    let known = offsets.known();
    let mut top = Top {
        w: Writer {
            // Room for most fields written (a scalar, a short array)
            // without the vector growing element by element, at the cost
            // of any small allocation.
            bytes: Vec::with_capacity(START + short::CHUNK),
            type_index: 0,
        },
        fields: Walking {
            splice,
            next_name: 0,
            from: Walk::new(splice.from).ok()?,
            known,
            walked: match known {
                Some(_) => Vec::new(),
                None => Vec::with_capacity(splice.names.len() + 1),
            },
            seen: 0,
            pieces: Vec::new(),
            tail,
        },
    };
    value.serialize(&mut top).ok()?;
    let fields = top.fields;
    match known {
        // Every earlier element has its field. With the keys of the fields
        // written checked in place, the count keeps the value's keys the
        // earlier ones: a field known unchanged is written (or skipped) as
        // before, so a key that came or went is a field written, which
        // then meets another key in place, or leaves the count off.
        Some(known) if fields.seen + 1 != known.len() => return None,
        Some(_) => {}
        // Every element was read, each key checked: none may be left.
        None => {
            let mut from = fields.from;
            if !matches!(from.next_elem(), Ok(None)) {
                return None;
            }
            let mut walked = fields.walked;
            walked.push(u32::try_from(from.at()).ok()?);
            offsets.remember(walked);
        }
    }
    Some(Patch {
        written: top.w.bytes,
        pieces: fields.pieces,
    })
}

impl Patch {
    /// The bytes of `from` (the earlier document) with each piece's
    /// element in place of the earlier one, in place.
    pub fn apply(&self, mut from: Vec<u8>) -> Vec<u8> {
        // Back to front: an earlier range stays where it is.
        for piece in self.pieces.iter().rev() {
            let new = &self.written[piece.new.clone()];
            if let Some(at) = piece.append {
                // Before the array's NUL, the array's length grown.
                let (end, len) = (piece.old.end - 1, from.len());
                from.resize(len + new.len(), 0);
                from.copy_within(end..len, end + new.len());
                from[end..end + new.len()].copy_from_slice(new);
                let len = read_len(&from, at) + new.len();
                from[at..at + 4].copy_from_slice(&length(len));
                continue;
            }
            let (old, len) = (piece.old.clone(), from.len());
            let end = old.start + new.len();
            if new.len() != old.len() {
                // The bytes after the element, moved once (a `memmove`).
                if new.len() > old.len() {
                    from.resize(len + new.len() - old.len(), 0);
                }
                from.copy_within(old.end..len, end);
                from.truncate(len + new.len() - old.len());
            }
            from[old.start..end].copy_from_slice(new);
        }
        let len = length(from.len());
        from[..4].copy_from_slice(&len);
        from
    }

    /// How the patch moves the earlier elements, in order: each piece's
    /// earlier element (by its start) grows by this many bytes.
    pub fn moves(&self) -> impl Iterator<Item = (usize, i64)> + '_ {
        self.pieces.iter().map(|piece| {
            let (new, old) = (piece.new.len() as i64, piece.old.len() as i64);
            let grown = match piece.append {
                Some(_) => new,
                None => new - old,
            };
            (piece.old.start, grown)
        })
    }

    /// Puts `element` (a whole BSON element) in place of the earlier
    /// element at `old`, replacing the piece written there, if any; the
    /// pieces stay in the document's order. For a field the plan writes
    /// after the value was serialized (a `timestamps` stamp).
    pub fn put(&mut self, old: Range<usize>, element: &[u8]) {
        let start = self.written.len();
        self.written.extend_from_slice(element);
        let piece = Piece {
            new: start..self.written.len(),
            old,
            append: None,
        };
        match self
            .pieces
            .binary_search_by_key(&piece.old.start, |p| p.old.start)
        {
            Ok(i) => self.pieces[i] = piece,
            Err(i) => self.pieces.insert(i, piece),
        }
    }

    /// [`apply`](Patch::apply) to a copy of `from`.
    pub fn applied(&self, from: &[u8]) -> Vec<u8> {
        let grown: usize = self.pieces.iter().map(|p| p.new.len()).sum();
        let mut copy = Vec::with_capacity(from.len() + grown);
        copy.extend_from_slice(from);
        self.apply(copy)
    }
}

/// A BSON length.
fn length(len: usize) -> [u8; 4] {
    i32::try_from(len).unwrap_or(i32::MAX).to_le_bytes()
}

/// The BSON length at `at` of `bytes`.
fn read_len(bytes: &[u8], at: usize) -> usize {
    let len = i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    usize::try_from(len).unwrap_or(0)
}

/// The bytes a patch's vector starts with room for.
const START: usize = 512;

/// The earlier document, beside the value's fields.
struct Walking<'s> {
    splice: &'s Splice<'s>,
    /// Where the next field's name is searched from in `splice.names`.
    next_name: usize,
    /// The earlier document: read in turn, or, with `known` offsets, at
    /// the element of a field written.
    from: Walk<'s>,
    /// Where each earlier element starts, then the document's end.
    known: Option<&'s [u32]>,
    /// Without `known`: where each element read starts.
    walked: Vec<u32>,
    /// The fields the value wrote or skipped so far: the next one is in
    /// place of the earlier element of this index.
    seen: usize,
    pieces: Vec<Piece>,
    tail: &'s Tails<'s>,
}

/// Writes the elements after the first `n` of the field `i` (in
/// `splice.names` order) of the value being patched (`Schema::__odm_tail`):
/// `None` when its type cannot, and serde's sequence is written instead.
pub(crate) type Tails<'t> = dyn Fn(usize, usize, &mut TailOut<'_>) -> Option<bool> + 't;

/// What to do with one field.
enum Field {
    /// Nothing: it is unchanged.
    Skip,
    /// Write it; the earlier element is at `old`.
    Write { old: Range<usize> },
    /// Write the elements of its sequence after the first `n`, which are
    /// all of the earlier array's (element `old`, its length at `at`), of
    /// the field `i` (in `splice.names` order).
    Append {
        old: Range<usize>,
        at: usize,
        n: usize,
        i: usize,
    },
}

impl<'s> Walking<'s> {
    /// The earlier document.
    fn earlier(&self) -> &'s [u8] {
        self.splice.from
    }

    /// Reads the next earlier element, which must be of `key` (and end at
    /// `end`, when given): whether it is an array.
    fn read(&mut self, key: &str, end: Option<usize>) -> Result<bool> {
        match self.from.next_elem() {
            Ok(Some(elem))
                if elem.key == key.as_bytes() && end.is_none_or(|end| self.from.at() == end) =>
            {
                Ok(elem.is_array())
            }
            _ => Err(GiveUp),
        }
    }

    /// The earlier element of the field `key`, which must be the next one,
    /// and whether the field is known unchanged.
    fn next_field(&mut self, key: &str) -> Result<Field> {
        let names = self.splice.names;
        // Usually the next name (often the very same constant as serde's
        // key); one the value skips is passed over.
        let same = |name: &str| {
            std::ptr::eq(name, key) || crate::codec::text::same(name.as_bytes(), key.as_bytes())
        };
        let i = match names.get(self.next_name) {
            Some(name) if same(name) => self.next_name,
            _ => {
                let rest = names.get(self.next_name..).ok_or(GiveUp)?;
                self.next_name + rest.iter().position(|n| *n == key).ok_or(GiveUp)?
            }
        };
        self.next_name = i + 1;
        let at = self.seen;
        self.seen += 1;
        let unchanged = self.splice.unchanged;
        let skip = bit(unchanged.fields, i);
        let (old, array) = match self.known {
            // A field skipped is not read; one written is read in place.
            Some(known) => {
                if skip {
                    return Ok(Field::Skip);
                }
                let offset = |k: usize| known.get(k).map(|&o| o as usize).ok_or(GiveUp);
                let (start, end) = (offset(at)?, offset(at + 1)?);
                self.from.skip_to(start);
                (start..end, self.read(key, Some(end))?)
            }
            // Every element is read in turn, its offset noted.
            None => {
                let start = self.from.at();
                self.walked.push(u32::try_from(start).map_err(|_| GiveUp)?);
                let array = self.read(key, None)?;
                if skip {
                    return Ok(Field::Skip);
                }
                (start..self.from.at(), array)
            }
        };
        match unchanged.prefix_of(i) {
            (0, _) => Ok(Field::Write { old }),
            // Appended to: the earlier array stays, the rest is added.
            (n, true) if array => {
                let at = old.start + 1 + key.len() + 1;
                Ok(Field::Append { old, at, n, i })
            }
            // Edited after its first elements: it is spliced
            // (`rawser::splice`); written here, they would be copied twice.
            _ => Err(GiveUp),
        }
    }
}

impl EachField for Walking<'_> {
    fn field<T: Serialize + ?Sized>(
        &mut self,
        inner: &mut Struct<'_>,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        let Struct::Doc(doc) = &mut *inner else {
            return Err(GiveUp);
        };
        let start = doc.w.bytes.len();
        let old = match self.next_field(key)? {
            Field::Skip => return Ok(()),
            Field::Write { old } => old,
            Field::Append { old, at, n, i } => {
                let mut out = TailOut(Elements::after(doc.w, n));
                match (self.tail)(i, n, &mut out) {
                    Some(true) => {}
                    Some(false) => return Err(GiveUp),
                    // serde passes the first `n` elements to be skipped.
                    None => value.serialize(Prefixed {
                        w: doc.w,
                        old: None,
                        prefix: Prefix { n, all: true },
                    })?,
                }
                let new = start..doc.w.bytes.len();
                if new.is_empty() {
                    return Err(GiveUp);
                }
                let append = Some(at);
                self.pieces.push(Piece { new, old, append });
                return Ok(());
            }
        };
        ser::SerializeStruct::serialize_field(inner, key, value)?;
        let Struct::Doc(doc) = inner else {
            return Err(GiveUp);
        };
        // A field written as it was is no piece.
        if doc.w.bytes[start..] == self.earlier()[old.clone()] {
            doc.w.bytes.truncate(start);
            return Ok(());
        }
        let new = start..doc.w.bytes.len();
        let append = None;
        self.pieces.push(Piece { new, old, append });
        Ok(())
    }
}
