//! Paths the stored document lacks although the loaded value has them
//! (`#[serde(default)]` filled them in), and what a save does about them.
//!
//! An update that writes under such a path writes a fragment: `$set`
//! of `profile.name` on a document without `profile` stores `{profile:
//! {name}}`, which no longer loads; a `$push` onto a missing array stores
//! only the pushed elements; a positional `$set` stores `{"0": ..}`. So a
//! change at or under a missing path sets the whole field instead
//! ([`Op::Whole`]), and once written the path is no longer missing.

use std::collections::{BTreeSet, HashSet};

use mongodb::bson::raw::RawDocument;
use mongodb::bson::spec::ElementType;

use super::{is_awkward, join, Change, Op};
use crate::codec::scan::{elements, Elem, Keys, Walk};
use crate::error::Error;

/// Missing paths, sorted so the paths under one are a range.
pub(crate) type Missing = BTreeSet<String>;

/// The paths present in `snapshot` (the loaded value, serialized) but not
/// in `stored` (the document as read); none lies under another. Array elements are
/// named by index (`comments.1.likes`). Where the two differ in shape (a
/// document against an array or a scalar, arrays of different lengths)
/// the path itself is reported. Linear in the documents' size.
pub(crate) fn missing_paths(
    stored: &RawDocument,
    snapshot: &RawDocument,
) -> Result<Missing, Error> {
    let mut out = Missing::new();
    document(stored.as_bytes(), snapshot.as_bytes(), "", &mut out)?;
    Ok(out)
}

fn document(stored: &[u8], snapshot: &[u8], prefix: &str, out: &mut Missing) -> Result<(), Error> {
    if stored == snapshot {
        return Ok(());
    }
    let stored = elements(stored)?;
    let snapshot = elements(snapshot)?;
    let keys = Keys::new(&stored);
    for e in &snapshot {
        let found = keys.first(e.key);
        if found.is_some_and(|i| stored[i].same(e)) {
            continue;
        }
        if is_awkward(e.key) {
            // Not a path: the document holding it is the smallest unit.
            if !prefix.is_empty() {
                out.insert(prefix.to_string());
            }
            return Ok(());
        }
        let path = join(prefix, e.key_str()?);
        match found {
            None => {
                out.insert(path);
            }
            Some(i) => value(&stored[i], e, path, out)?,
        }
    }
    Ok(())
}

fn value(
    stored: &Elem<'_>,
    snapshot: &Elem<'_>,
    path: String,
    out: &mut Missing,
) -> Result<(), Error> {
    let nested = |e: &Elem<'_>| e.is_document() || e.is_array();
    if stored.is_document() && snapshot.is_document() {
        document(stored.value, snapshot.value, &path, out)
    } else if stored.is_array() && snapshot.is_array() {
        let stored = elements(stored.value)?;
        let snapshot = elements(snapshot.value)?;
        if stored.len() != snapshot.len() {
            out.insert(path);
            return Ok(());
        }
        for (i, (s, n)) in stored.iter().zip(&snapshot).enumerate() {
            if !s.same(n) {
                value(s, n, format!("{path}.{i}"), out)?;
            }
        }
        Ok(())
    } else {
        // Scalars of another width (an int64 read into an i32) are fine;
        // a different shape is not.
        if nested(stored) || nested(snapshot) {
            out.insert(path);
        }
        Ok(())
    }
}

/// The outermost missing path at or above `path`.
fn missing_above<'m>(missing: &'m Missing, path: &str) -> Option<&'m String> {
    let ends = path
        .match_indices('.')
        .map(|(i, _)| i)
        .chain(std::iter::once(path.len()));
    ends.filter_map(|end| missing.get(&path[..end])).next()
}

/// `changes` with every change at or under a missing path replaced by one
/// [`Op::Whole`] of that path, its value read from `current`, unless the
/// change of exactly that path writes the same anyway.
pub(crate) fn fill_missing(
    changes: Vec<Change>,
    missing: &Missing,
    current: &RawDocument,
) -> Result<Vec<Change>, Error> {
    if missing.is_empty() {
        return Ok(changes);
    }
    let mut filled: HashSet<&str> = HashSet::new();
    let mut out: Vec<Change> = Vec::with_capacity(changes.len());
    for change in changes {
        let Some(path) = missing_above(missing, &change.path) else {
            out.push(change);
            continue;
        };
        if *path == change.path && keeps_its_meaning(&change, current)? {
            out.push(change);
            continue;
        }
        if !filled.insert(path) {
            continue;
        }
        match lookup(current.as_bytes(), path)? {
            Some((value, positional)) => out.push(Change::new(
                Op::Whole,
                path.clone(),
                value.decode()?,
                positional,
            )),
            None => out.push(change),
        }
    }
    Ok(out)
}

/// A change of exactly a missing path that writes what it means anyway: a
/// `$set` or `$unset` of the whole value, or a `$push` onto an array that
/// was empty (the server creates the array with the pushed elements, and
/// concurrent pushes of other copies still land beside it).
fn keeps_its_meaning(change: &Change, current: &RawDocument) -> Result<bool, Error> {
    Ok(match change.op {
        Op::Set | Op::Unset => true,
        Op::Push => {
            let pushed = match &change.value {
                mongodb::bson::Bson::Array(values) => values.len(),
                _ => return Ok(false),
            };
            match lookup(current.as_bytes(), &change.path)? {
                Some((array, _)) if array.is_array() => elements(array.value)?.len() == pushed,
                _ => false,
            }
        }
        _ => false,
    })
}

/// The value at a dotted path (array elements by index) of a document, and
/// whether the path goes through an array element. Each level is walked
/// only as far as the part it looks for (the element `i` of a 20,000-element
/// array costs `i` steps, and nothing is collected).
pub(crate) fn lookup<'a>(doc: &'a [u8], path: &str) -> Result<Option<(Elem<'a>, bool)>, Error> {
    let mut at = Elem {
        tag: ElementType::EmbeddedDocument as u8,
        key: b"",
        value: doc,
    };
    let mut positional = false;
    for part in path.split('.') {
        let found = if at.is_array() {
            positional = true;
            match part.parse::<usize>() {
                Ok(i) => nth(at.value, i)?,
                Err(_) => None,
            }
        } else if at.is_document() {
            field(at.value, part.as_bytes())?
        } else {
            return Ok(None);
        };
        match found {
            Some(found) => at = found,
            None => return Ok(None),
        }
    }
    Ok(Some((at, positional)))
}

/// Element `i` of an array (by position, its key not read).
fn nth(array: &[u8], i: usize) -> Result<Option<Elem<'_>>, Error> {
    let mut walk = Walk::new(array)?;
    for _ in 0..i {
        if walk.next_elem()?.is_none() {
            return Ok(None);
        }
    }
    walk.next_elem()
}

/// The first element of a document with this key.
pub(crate) fn field<'a>(doc: &'a [u8], key: &[u8]) -> Result<Option<Elem<'a>>, Error> {
    let mut walk = Walk::new(doc)?;
    while let Some(e) = walk.next_elem()? {
        if e.key == key {
            return Ok(Some(e));
        }
    }
    Ok(None)
}

/// The paths strictly under `path` in `missing`.
fn under(missing: &Missing, path: &str) -> Vec<String> {
    let (from, to) = (format!("{path}."), format!("{path}/"));
    missing.range(from..to).cloned().collect()
}

/// The missing paths after a save of `changes` succeeded: those written
/// (at or under a `$set`, `$unset` or fill, or pushed onto) are stored
/// now; those inside an array that lost elements moved to other indexes,
/// so the array itself stands for them. Appends move nothing else.
pub(crate) fn settle_missing(missing: &mut Missing, changes: &[Change]) {
    if missing.is_empty() {
        return;
    }
    for c in changes {
        let inside = under(missing, &c.path);
        match c.op {
            Op::Set | Op::Unset | Op::Whole => {
                missing.remove(&c.path);
                for path in inside {
                    missing.remove(&path);
                }
            }
            Op::Push => {
                missing.remove(&c.path);
            }
            Op::PullAll | Op::PullIds if !inside.is_empty() => {
                for path in inside {
                    missing.remove(&path);
                }
                missing.insert(c.path.clone());
            }
            _ => {}
        }
    }
}
