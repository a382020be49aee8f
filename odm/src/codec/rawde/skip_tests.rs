//! The version key is never shown to the value.

// The types exist to be decoded and compared through `Debug`.
#![allow(dead_code)]

use crate::codec::keys::Hidden;
use std::collections::BTreeMap;

use mongodb::bson::{rawdoc, Bson};
use serde::Deserialize;

use super::from_slice;

/// The version key is left out at the top level only, so closed and
/// catch-all models never see it.
#[test]
fn the_skipped_key_is_left_out_at_the_top_level_only() {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Closed {
        a: i32,
        sub: BTreeMap<String, i32>,
    }
    #[derive(Debug, Deserialize)]
    struct CatchAll {
        a: i32,
        #[serde(flatten)]
        rest: BTreeMap<String, Bson>,
    }
    let stored = rawdoc! { "a": 1, "__v": 3, "sub": { "__v": 4 }, "__v": 5 };
    let bytes = stored.as_bytes();
    let hidden = crate::codec::version_key::hidden(&stored, Some("__v"));
    let closed: Closed = from_slice(bytes, Hidden::version(Some("__v"))).expect("fast path");
    assert_eq!(format!("{closed:?}"), "Closed { a: 1, sub: {\"__v\": 4} }");
    let fallback: Closed = crate::bson_release::testing::from_slice(hidden.as_bytes()).unwrap();
    assert_eq!(format!("{fallback:?}"), format!("{closed:?}"));
    assert!(from_slice::<Closed>(bytes, Hidden::NONE).is_none());
    let all: CatchAll = from_slice(bytes, Hidden::version(Some("__v"))).expect("fast path");
    assert_eq!(
        format!("{all:?}"),
        "CatchAll { a: 1, rest: {\"sub\": Document({\"__v\": Int32(4)})} }"
    );
    let fallback: CatchAll = crate::bson_release::testing::from_slice(hidden.as_bytes()).unwrap();
    assert_eq!(format!("{fallback:?}"), format!("{all:?}"));
}

/// The fence key of fenced writes is hidden at the top level too, with or
/// without a version key.
#[test]
fn the_fence_is_left_out_at_the_top_level_only() {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Closed {
        a: i32,
        sub: BTreeMap<String, i32>,
    }
    let stored = rawdoc! { "a": 1, "__fence": 9_i64, "sub": { "__fence": 4 }, "__v": 0 };
    let closed: Closed =
        from_slice(stored.as_bytes(), Hidden::version(Some("__v"))).expect("fast path");
    assert_eq!(
        format!("{closed:?}"),
        "Closed { a: 1, sub: {\"__fence\": 4} }"
    );
    let hidden = crate::codec::version_key::hidden(&stored, Some("__v"));
    let fallback: Closed = crate::bson_release::testing::from_slice(hidden.as_bytes()).unwrap();
    assert_eq!(format!("{fallback:?}"), format!("{closed:?}"));
    let unversioned = rawdoc! { "a": 1, "__fence": 9_i64, "sub": {} };
    let closed: Closed = from_slice(unversioned.as_bytes(), Hidden::NONE).expect("fast path");
    assert_eq!(closed.a, 1);
}

/// A hidden string that is not UTF-8 or a hidden boolean that is neither 0
/// nor 1 (both found by the equivalence test): the fallback cannot leave
/// it out (`hidden` stops at the bad element) and `bson` refuses the
/// document, so the fast path must give up too rather than load it.
#[test]
fn a_hidden_malformed_value_is_refused_as_bson_refuses_it() {
    #[derive(Debug, Deserialize)]
    struct Plain {
        a: i32,
    }
    for key in ["__fence", "__v"] {
        let mut stored = rawdoc! { "a": 1 };
        crate::bson_release::append(&mut stored, key, "\u{1F600}");
        let mut bytes = stored.into_bytes();
        // The emoji's last byte (before the string's NUL and the
        // document's): now an invalid UTF-8 sequence.
        let at = bytes.len() - 3;
        bytes[at] = b'z';
        assert!(
            from_slice::<Plain>(&bytes, Hidden::version(Some("__v"))).is_none(),
            "{key}"
        );
        let raw = mongodb::bson::RawDocument::from_bytes(&bytes).unwrap();
        let hidden = crate::codec::version_key::hidden(raw, Some("__v"));
        assert!(crate::bson_release::testing::from_slice::<Plain>(hidden.as_bytes()).is_err());
        let mut stored = rawdoc! { "a": 1 };
        crate::bson_release::append(&mut stored, key, true);
        let mut bytes = stored.into_bytes();
        let at = bytes.len() - 2;
        bytes[at] = 2;
        assert!(
            from_slice::<Plain>(&bytes, Hidden::version(Some("__v"))).is_none(),
            "{key}"
        );
        let raw = mongodb::bson::RawDocument::from_bytes(&bytes).unwrap();
        let hidden = crate::codec::version_key::hidden(raw, Some("__v"));
        assert!(crate::bson_release::testing::from_slice::<Plain>(hidden.as_bytes()).is_err());
    }
}

/// A struct's decoding reports the first top-level element under the
/// version key, or its absence, so the load need not walk the document
/// again; anything else reports nothing.
#[test]
fn a_struct_decoding_reports_the_first_version_it_passed() {
    use super::{from_slice_seeing, Seen};

    #[derive(Debug, Deserialize)]
    struct Open {
        a: i32,
    }
    let seen = |bytes: &[u8]| match from_slice_seeing::<Open>(bytes, Some("__v").into()) {
        Some((_, Seen::Found(tag, value))) => format!("found {tag} {value:?}"),
        Some((_, Seen::Absent)) => "absent".to_string(),
        Some((_, Seen::Unknown)) => "unknown".to_string(),
        None => "gave up".to_string(),
    };
    let twice = rawdoc! { "a": 1, "sub": { "__v": 9 }, "__v": 3, "__v": 5 };
    assert_eq!(seen(twice.as_bytes()), "found 16 [3, 0, 0, 0]");
    assert_eq!(
        seen(rawdoc! { "__v": 2.5, "a": 1 }.as_bytes()),
        "found 1 [0, 0, 0, 0, 0, 0, 4, 64]"
    );
    assert_eq!(seen(rawdoc! { "a": 1, "__fence": 2 }.as_bytes()), "absent");
    // A map is not a struct: the caller walks the document itself.
    let map = from_slice_seeing::<BTreeMap<String, i32>>(twice.as_bytes(), Some("__v").into());
    assert!(matches!(map, None | Some((_, Seen::Unknown))));
}
