//! The version key of a stored document: read and checked at load, and
//! never shown to the value's deserializer.
//!
//! The version is not a field of the model (it lives on the `Doc`), so a
//! model with `#[serde(deny_unknown_fields)]` or a `#[serde(flatten)]`
//! catch-all map must not see it: both decoders leave the top-level key
//! out (`rawde` skips it, the `bson` fallback reads a copy without it).

use std::borrow::Cow;

use mongodb::bson::raw::{RawBsonRef, RawDocument, RawDocumentBuf};

use crate::codec::keys::Hidden;
use crate::codec::scan::Walk;

/// The stored field holding the largest token that fenced writes (see
/// `wire::fence`) wrote the document with; hidden from the value like the
/// version key.
pub(crate) const FENCE: &str = "__fence";

/// The stored field a write that adds a reference under a referential
/// rule increments on the document it refers to (see `refs::guard`), so
/// that write and a delete of that document conflict; hidden from the
/// value like the version key and the fence.
pub(crate) const REFS: &str = "__refs";

/// Whether `key` is one of odm's own top-level keys that no value sees
/// besides the version key: the fence and the reference counter.
#[inline]
pub(crate) fn is_odm_key(key: &[u8]) -> bool {
    use crate::codec::text::same;
    same(key, FENCE.as_bytes()) || same(key, REFS.as_bytes())
}

/// The largest double read as a version: above it not every integer is a
/// double, and the value could not be incremented exactly.
pub(crate) const MAX_EXACT_DOUBLE: f64 = 9_007_199_254_740_992.0;

/// The stored version under `key`: `None` when there is no key or no such
/// field. A stored version must be a non-negative integer: an Int32 or
/// Int64 `>= 0`, or a finite integral double `>= 0` (`3.0`, as other
/// drivers may store it). Anything else is refused with a message saying
/// what was found, since no save could match or increment it.
pub(crate) fn read(raw: &RawDocument, key: Option<&str>) -> Result<Option<i64>, String> {
    read_named(raw, key, "the version key")
}

/// [`read`], naming the key as `name` in its messages (the schema version
/// key is read by the same rule).
pub(crate) fn read_named(
    raw: &RawDocument,
    key: Option<&str>,
    name: &str,
) -> Result<Option<i64>, String> {
    let Some(key) = key else {
        return Ok(None);
    };
    let found = match raw.get(key) {
        Ok(Some(found)) => found,
        Ok(None) => return Ok(None),
        Err(e) => return Err(format!("{name} cannot be read: {e}")),
    };
    match found {
        RawBsonRef::Int32(v) if v >= 0 => Ok(Some(v.into())),
        RawBsonRef::Int64(v) if v >= 0 => Ok(Some(v)),
        RawBsonRef::Double(v) if v.is_finite() && v.fract() == 0.0 && (0.0..=MAX_EXACT_DOUBLE).contains(&v) => {
            Ok(Some(v as i64))
        }
        other => Err(format!(
            "{name} holds {}; expected a non-negative integer (Int32, Int64, or an integral double)",
            describe(other)
        )),
    }
}

/// What a refused version value is, for the error message.
fn describe(value: RawBsonRef<'_>) -> String {
    match value {
        RawBsonRef::Int32(v) => format!("the negative Int32 {v}"),
        RawBsonRef::Int64(v) => format!("the negative Int64 {v}"),
        RawBsonRef::Double(v) => format!("the double {v:?}"),
        RawBsonRef::String(s) => format!("the string {s:?}"),
        RawBsonRef::Boolean(b) => format!("the boolean {b}"),
        RawBsonRef::Null => "null".to_string(),
        other => format!("a value of type {:?}", other.element_type()),
    }
}

/// `raw` without its top-level elements under odm's keys (`keys`: the
/// version key, the schema version key; and always the fence key
/// `__fence`, written by fenced writes, and `__refs`, the reference
/// counter of referential rules): what the value's deserializer sees.
/// Borrowed when there is nothing to leave out (or the document is
/// malformed: decoding it then fails anyway).
pub(crate) fn hidden(raw: &RawDocument, keys: impl Into<Hidden>) -> Cow<'_, RawDocument> {
    let keys = keys.into();
    let present = |k: &str| matches!(raw.get(k), Ok(Some(_)));
    if !present(FENCE)
        && !present(REFS)
        && !keys.version.is_some_and(present)
        && !keys.schema.is_some_and(present)
        && !keys.kind.is_some_and(present)
    {
        return Cow::Borrowed(raw);
    }
    let mut out = RawDocumentBuf::new();
    for element in raw {
        match element.map(|(k, v)| (crate::bson_release::key_str(k), v)) {
            Ok((k, _)) if keys.hides(k.as_bytes()) => {}
            Ok((k, v)) => crate::bson_release::append_ref(&mut out, k, v),
            Err(_) => return Cow::Borrowed(raw),
        }
    }
    Cow::Owned(out)
}

/// Whether `stored` without odm's top-level keys (what [`hidden`]
/// leaves) holds exactly `snapshot`'s elements, byte for byte and in
/// order: the usual case of a value just loaded or saved, which
/// serializes as it is stored. One walk of each, nothing copied; `false`
/// also when either document is malformed (the caller then takes the
/// general path, which reports it).
///
/// `snapshot` is a serialization, so well formed: when its elements are
/// the first bytes of `stored`'s (odm's keys after the value's fields, as
/// an insert writes them), only the stored elements after them are read.
pub(crate) fn hides_to(
    stored: &RawDocument,
    keys: impl Into<Hidden>,
    snapshot: &RawDocument,
) -> bool {
    let keys = keys.into();
    if let Some(hides) = hides_after(stored.as_bytes(), keys, snapshot.as_bytes()) {
        return hides;
    }
    let hidden = |k: &[u8]| keys.hides(k);
    let (Ok(mut stored), Ok(mut snapshot)) =
        (Walk::new(stored.as_bytes()), Walk::new(snapshot.as_bytes()))
    else {
        return false;
    };
    loop {
        let a = match stored.next_elem() {
            Ok(Some(a)) if hidden(a.key) => continue,
            Ok(a) => a,
            Err(_) => return false,
        };
        match (a, snapshot.next_elem()) {
            (None, Ok(None)) => return true,
            (Some(a), Ok(Some(b))) if a.key == b.key && a.same(&b) => {}
            _ => return false,
        }
    }
}

/// [`hides_to`] when `snapshot`'s elements (its bytes between its length
/// and its NUL) are the first bytes of `stored`'s: whether every stored
/// element after them is hidden. `None` when they are not, or when
/// another element follows them (the walk of both then decides).
fn hides_after(stored: &[u8], keys: Hidden, snapshot: &[u8]) -> Option<bool> {
    let mut after = crate::codec::scan::after_prefix(stored, snapshot)?;
    loop {
        match after.next_elem() {
            Ok(Some(elem)) if keys.hides(elem.key) => {}
            Ok(None) => return Some(true),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use mongodb::bson::rawdoc;

    use super::*;

    #[test]
    fn accepts_non_negative_integers() {
        for (doc, expected) in [
            (rawdoc! { "__v": 0 }, Some(0)),
            (rawdoc! { "__v": 7_i64 }, Some(7)),
            (rawdoc! { "__v": 3.0 }, Some(3)),
            (rawdoc! { "__v": -0.0 }, Some(0)),
            (rawdoc! { "x": 1 }, None),
        ] {
            assert_eq!(read(&doc, Some("__v")), Ok(expected), "{doc:?}");
        }
        assert_eq!(read(&rawdoc! { "__v": "x" }, None), Ok(None));
    }

    #[test]
    fn refuses_everything_else_saying_what_it_found() {
        for (doc, found) in [
            (rawdoc! { "__v": "3" }, "the string \"3\""),
            (rawdoc! { "__v": 2.5 }, "the double 2.5"),
            (rawdoc! { "__v": -1 }, "the negative Int32 -1"),
            (rawdoc! { "__v": -1_i64 }, "the negative Int64 -1"),
            (rawdoc! { "__v": -3.0 }, "the double -3.0"),
            (rawdoc! { "__v": f64::NAN }, "the double NaN"),
            (rawdoc! { "__v": f64::INFINITY }, "the double inf"),
            (rawdoc! { "__v": 1e300 }, "the double 1e300"),
            (rawdoc! { "__v": null }, "null"),
            (rawdoc! { "__v": true }, "the boolean true"),
            (
                rawdoc! { "__v": { "n": 1 } },
                "a value of type EmbeddedDocument",
            ),
        ] {
            let message = read(&doc, Some("__v")).unwrap_err();
            assert_eq!(
                message,
                format!("the version key holds {found}; expected a non-negative integer (Int32, Int64, or an integral double)")
            );
        }
    }

    #[test]
    fn hides_only_the_top_level_key() {
        let doc = rawdoc! { "_id": 1, "__v": 2, "sub": { "__v": 5 }, "z": "z" };
        assert_eq!(
            &*hidden(&doc, Some("__v")),
            &*rawdoc! { "_id": 1, "sub": { "__v": 5 }, "z": "z" }
        );
        assert!(matches!(hidden(&doc, Some("rev")), Cow::Borrowed(_)));
        assert!(matches!(hidden(&doc, Hidden::NONE), Cow::Borrowed(_)));
    }

    #[test]
    fn hides_the_fence_too() {
        let doc = rawdoc! { "_id": 1, "__fence": 7_i64, "__v": 2, "sub": { "__fence": 1 } };
        assert_eq!(
            &*hidden(&doc, Some("__v")),
            &*rawdoc! { "_id": 1, "sub": { "__fence": 1 } }
        );
        assert_eq!(
            &*hidden(&doc, Hidden::NONE),
            &*rawdoc! { "_id": 1, "__v": 2, "sub": { "__fence": 1 } }
        );
    }

    #[test]
    fn hides_the_schema_version_key_when_named() {
        let doc = rawdoc! { "_id": 1, "__sv": 2, "__v": 0, "a": { "__sv": 1 } };
        let keys = Hidden {
            version: Some("__v"),
            schema: Some("__sv"),
            kind: None,
        };
        assert_eq!(
            &*hidden(&doc, keys),
            &*rawdoc! { "_id": 1, "a": { "__sv": 1 } }
        );
        assert_eq!(
            &*hidden(&doc, Some("__v")),
            &*rawdoc! { "_id": 1, "__sv": 2, "a": { "__sv": 1 } }
        );
        let snapshot = rawdoc! { "_id": 1, "a": { "__sv": 1 } };
        assert!(hides_to(&doc, keys, &snapshot));
        assert!(!hides_to(&doc, Some("__v"), &snapshot));
    }

    #[test]
    fn hides_to_reads_stored_less_version_and_fence_against_the_snapshot() {
        let snapshot = rawdoc! { "a": 1, "b": { "c": "x" } };
        // With odm's keys last, the stored elements after the value's
        // bytes are all that is read.
        for (stored, last) in [
            (rawdoc! { "a": 1, "b": { "c": "x" }, "__v": 3 }, true),
            (
                rawdoc! { "a": 1, "b": { "c": "x" }, "__v": 3, "__fence": 9_i64 },
                true,
            ),
            (
                rawdoc! { "__v": 3, "a": 1, "__fence": 9_i64, "b": { "c": "x" } },
                false,
            ),
            (rawdoc! { "a": 1, "b": { "c": "x" } }, true),
        ] {
            assert!(hides_to(&stored, Some("__v"), &snapshot), "{stored:?}");
            let after = hides_after(stored.as_bytes(), Some("__v").into(), snapshot.as_bytes());
            assert_eq!(after, last.then_some(true), "{stored:?}");
            // What `hidden` leaves is the snapshot, byte for byte.
            assert_eq!(hidden(&stored, Some("__v")).as_bytes(), snapshot.as_bytes());
        }
        for stored in [
            rawdoc! { "a": 2, "b": { "c": "x" }, "__v": 3 },
            rawdoc! { "b": { "c": "x" }, "a": 1, "__v": 3 },
            rawdoc! { "a": 1, "__v": 3 },
            rawdoc! { "a": 1, "b": { "c": "x" }, "d": 1 },
            // Another version key is not hidden.
            rawdoc! { "a": 1, "b": { "c": "x" }, "version": 3 },
            // Same value, another type.
            rawdoc! { "a": 1_i64, "b": { "c": "x" } },
            // The value's bytes, then a field of the value's.
            rawdoc! { "a": 1, "b": { "c": "x" }, "__v": 3, "d": 1 },
            rawdoc! { "a": 1, "b": { "c": "x" }, "d": { "__v": 1 } },
        ] {
            assert!(!hides_to(&stored, Some("__v"), &snapshot), "{stored:?}");
            assert_ne!(hidden(&stored, Some("__v")).as_bytes(), snapshot.as_bytes());
        }
        // Without a version key only the fence is hidden.
        let stored = rawdoc! { "a": 1, "__v": 3, "b": { "c": "x" } };
        assert!(!hides_to(&stored, Hidden::NONE, &snapshot));
        // A malformed document is never taken as equal.
        let mut bad = snapshot.as_bytes().to_vec();
        bad[4] = 0x7f;
        let bad = RawDocument::from_bytes(&bad).unwrap();
        assert!(!hides_to(bad, Some("__v"), &snapshot));
        assert!(!hides_to(&snapshot, Some("__v"), bad));
    }
}
