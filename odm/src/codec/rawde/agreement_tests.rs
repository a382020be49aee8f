//! The fast path and the fallback agree on every enum form and on the
//! shapes where a lenient decoder could accept what `bson` refuses.
//!
//! Each case is decoded four ways: the fast path (`rawde`), the fallback
//! odm uses (`bson::from_slice` through `Strict`), `bson::from_slice`
//! alone, and `bson`'s `Bson` deserializer (`from_document`). The fast
//! path either gives up or decodes exactly what the fallback decodes, and
//! whatever the fallback decodes, both `bson` deserializers decode the
//! same. The fallback refuses what `from_slice` accepts only for an enum
//! document with no key or extra keys (listed in the tests), and what
//! `from_document` accepts only for `{"Unit": null}` (`from_slice` refuses
//! it too).

// The types exist to be decoded and compared through `Debug`.
#![allow(dead_code)]

use crate::codec::keys::Hidden;
use std::collections::BTreeMap;
use std::fmt::Debug;

use mongodb::bson::{rawdoc, Bson, Document, RawDocumentBuf};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::from_slice;
use crate::codec::strict::Strict;

#[derive(Debug, Deserialize)]
struct Inner {
    x: i32,
}

#[derive(Debug, Deserialize)]
enum External {
    Unit,
    Newtype(i32),
    Tuple(i32, String),
    Struct { a: i32 },
}

#[derive(Debug, Deserialize)]
#[serde(tag = "t")]
enum Internal {
    Unit,
    Newtype(Inner),
    Struct { a: i32 },
}

#[derive(Debug, Deserialize)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Unit,
    Newtype(i32),
    Tuple(i32, String),
    Struct { a: i32 },
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Untagged {
    Unit,
    Newtype(i32),
    Tuple(i32, String),
    Struct { a: i32 },
}

/// An enum as a field (a model is a struct; its enums are fields).
#[derive(Debug, Deserialize)]
struct Holder<E> {
    e: E,
}

/// Externally tagged enums under serde's buffering (untagged, flatten).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Buffered {
    Tagged(External),
}

#[derive(Debug, Deserialize)]
struct Flattened {
    #[serde(flatten)]
    rest: BTreeMap<String, External>,
}

/// `Ok(debug text)` or `Err(())` of the fallback, after checking the rules.
fn agree<T: DeserializeOwned + Debug>(document: &RawDocumentBuf) -> Result<String, ()> {
    agree_bytes::<T>(document.as_bytes(), &show(document))
}

/// The elements, duplicates included.
fn show(document: &RawDocumentBuf) -> String {
    format!("{:?}", document.iter().collect::<Vec<_>>())
}

fn agree_bytes<T: DeserializeOwned + Debug>(bytes: &[u8], case: &str) -> Result<String, ()> {
    let fast = from_slice::<T>(bytes, Hidden::NONE).map(|v| format!("{v:?}"));
    let strict =
        crate::bson_release::testing::from_slice::<Strict<T>>(bytes).map(|v| format!("{:?}", v.0));
    let lax = crate::bson_release::testing::from_slice::<T>(bytes).map(|v| format!("{v:?}"));
    if let Some(fast) = &fast {
        assert_eq!(
            strict.as_ref().ok(),
            Some(fast),
            "fast path vs fallback: {case}"
        );
    }
    if let Ok(value) = &strict {
        assert_eq!(
            Some(value),
            lax.as_ref().ok(),
            "fallback vs from_slice: {case}"
        );
        // A `Document` keeps one value of a key stored twice: compare only
        // what it holds whole.
        let tree = Document::from_reader(bytes).unwrap();
        if crate::bson_release::testing::to_vec(&tree).unwrap() == bytes {
            let tree =
                crate::bson_release::testing::from_document::<T>(tree).map(|v| format!("{v:?}"));
            assert_eq!(
                Some(value),
                tree.as_ref().ok(),
                "fallback vs from_document: {case}"
            );
        }
    }
    strict.map_err(|_| ())
}

fn ok(text: &str) -> Result<String, ()> {
    Ok(text.to_string())
}

#[test]
fn externally_tagged_enums_need_exactly_one_key() {
    type H = Holder<External>;
    for covered in [
        rawdoc! { "e": "Unit" },
        rawdoc! { "e": { "Newtype": 1 } },
        rawdoc! { "e": { "Tuple": [1, "x"] } },
        rawdoc! { "e": { "Struct": { "a": 1 } } },
    ] {
        assert!(
            from_slice::<H>(covered.as_bytes(), Hidden::NONE).is_some(),
            "{}",
            show(&covered)
        );
    }
    assert_eq!(
        agree::<H>(&rawdoc! { "e": "Unit" }),
        ok("Holder { e: Unit }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "Newtype": 1 } }),
        ok("Holder { e: Newtype(1) }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "Tuple": [1, "x"] } }),
        ok("Holder { e: Tuple(1, \"x\") }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "Struct": { "a": 1 } } }),
        ok("Holder { e: Struct { a: 1 } }")
    );
    for refused in [
        rawdoc! { "e": {} },
        rawdoc! { "e": { "Newtype": 1, "Struct": { "a": 1 } } },
        rawdoc! { "e": { "Struct": { "a": 1 }, "zzz": null } },
        rawdoc! { "e": { "Unit": null } },
        rawdoc! { "e": { "Unit": 1, "Newtype": 2 } },
        rawdoc! { "e": { "Tuple": [1, "x"], "Tuple": [2, "y"] } },
        rawdoc! { "e": { "Nope": 1 } },
        rawdoc! { "e": "Nope" },
        rawdoc! { "e": "Newtype" },
        rawdoc! { "e": 5 },
        rawdoc! { "e": [1] },
        rawdoc! { "e": { "Struct": { "a": 1, "a": 2 } } },
    ] {
        assert_eq!(agree::<H>(&refused), Err(()), "{}", show(&refused));
    }
    // `bson::from_slice` alone reads only the first key of these.
    for lenient in [
        rawdoc! { "e": { "Newtype": 1, "Struct": { "a": 1 } } },
        rawdoc! { "e": { "Struct": { "a": 1 }, "zzz": null } },
    ] {
        let bytes = lenient.as_bytes();
        assert!(crate::bson_release::testing::from_slice::<H>(bytes).is_ok());
        assert!(from_slice::<H>(bytes, Hidden::NONE).is_none());
    }
    // In an `Option`, and in a sequence.
    type O = Holder<Option<External>>;
    assert_eq!(agree::<O>(&rawdoc! { "e": null }), ok("Holder { e: None }"));
    assert_eq!(
        agree::<O>(&rawdoc! { "e": { "Newtype": 2 } }),
        ok("Holder { e: Some(Newtype(2)) }")
    );
    assert_eq!(
        agree::<O>(&rawdoc! { "e": { "Newtype": 2, "Unit": null } }),
        Err(())
    );
    type V = Holder<Vec<External>>;
    assert_eq!(
        agree::<V>(&rawdoc! { "e": ["Unit", { "Newtype": 3 }] }),
        ok("Holder { e: [Unit, Newtype(3)] }")
    );
    assert_eq!(
        agree::<V>(&rawdoc! { "e": ["Unit", { "Newtype": 3, "Unit": null }] }),
        Err(())
    );
}

#[test]
fn internally_tagged_enums_agree() {
    type H = Holder<Internal>;
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "t": "Unit" } }),
        ok("Holder { e: Unit }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "t": "Newtype", "x": 4 } }),
        ok("Holder { e: Newtype(Inner { x: 4 }) }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "a": 5, "t": "Struct" } }),
        ok("Holder { e: Struct { a: 5 } }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "t": "Struct", "a": 5, "extra": 1 } }),
        ok("Holder { e: Struct { a: 5 } }")
    );
    for refused in [
        rawdoc! { "e": {} },
        rawdoc! { "e": { "a": 5 } },
        rawdoc! { "e": { "t": "Nope" } },
        rawdoc! { "e": { "t": "Struct" } },
        rawdoc! { "e": { "t": "Struct", "t": "Unit", "a": 1 } },
        rawdoc! { "e": "Unit" },
    ] {
        assert_eq!(agree::<H>(&refused), Err(()), "{}", show(&refused));
    }
}

#[test]
fn adjacently_tagged_enums_agree() {
    type H = Holder<Adjacent>;
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "t": "Unit" } }),
        ok("Holder { e: Unit }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "t": "Newtype", "c": 1 } }),
        ok("Holder { e: Newtype(1) }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "c": [1, "x"], "t": "Tuple" } }),
        ok("Holder { e: Tuple(1, \"x\") }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "t": "Struct", "c": { "a": 1 } } }),
        ok("Holder { e: Struct { a: 1 } }")
    );
    for refused in [
        rawdoc! { "e": {} },
        rawdoc! { "e": { "c": 1 } },
        rawdoc! { "e": { "t": "Newtype" } },
        rawdoc! { "e": { "t": "Newtype", "c": 1, "c": 2 } },
        rawdoc! { "e": { "t": "Newtype", "t": "Unit", "c": 1 } },
        rawdoc! { "e": { "Newtype": 1 } },
    ] {
        assert_eq!(agree::<H>(&refused), Err(()), "{}", show(&refused));
    }
}

#[test]
fn untagged_enums_agree() {
    type H = Holder<Untagged>;
    assert_eq!(agree::<H>(&rawdoc! { "e": null }), ok("Holder { e: Unit }"));
    assert_eq!(
        agree::<H>(&rawdoc! { "e": 7 }),
        ok("Holder { e: Newtype(7) }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": [7, "x"] }),
        ok("Holder { e: Tuple(7, \"x\") }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "a": 7 } }),
        ok("Holder { e: Struct { a: 7 } }")
    );
    for refused in [
        rawdoc! { "e": "x" },
        rawdoc! { "e": [1] },
        rawdoc! { "e": {} },
    ] {
        assert_eq!(agree::<H>(&refused), Err(()), "{}", show(&refused));
    }
}

/// serde buffers these and checks the single key itself.
#[test]
fn buffered_external_enums_agree() {
    type H = Holder<Buffered>;
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "Newtype": 1 } }),
        ok("Holder { e: Tagged(Newtype(1)) }")
    );
    assert_eq!(
        agree::<H>(&rawdoc! { "e": { "Newtype": 1, "Unit": null } }),
        Err(())
    );
    assert_eq!(
        agree::<Flattened>(&rawdoc! { "a": "Unit", "b": { "Newtype": 1 } }),
        ok("Flattened { rest: {\"a\": Unit, \"b\": Newtype(1)} }")
    );
    assert_eq!(
        agree::<Flattened>(&rawdoc! { "b": { "Newtype": 1, "Unit": null } }),
        Err(())
    );
}

/// A key stored twice: a struct refuses it, a map keeps the last value.
#[test]
fn duplicate_keys_agree() {
    #[derive(Debug, Deserialize)]
    struct Plain {
        a: i32,
    }
    let twice = rawdoc! { "a": 1, "a": 2 };
    assert_eq!(agree::<Plain>(&twice), Err(()));
    assert_eq!(
        agree::<Holder<Plain>>(&rawdoc! { "e": twice.clone() }),
        Err(())
    );
    assert_eq!(agree::<BTreeMap<String, i32>>(&twice), ok("{\"a\": 2}"));
    assert_eq!(
        agree::<BTreeMap<String, Bson>>(&twice),
        ok("{\"a\": Int32(2)}")
    );
}

/// Lengths that do not match the content: the outer document, a
/// sub-document, a string; bytes after the end.
#[test]
fn wrong_lengths_and_trailing_bytes_agree() {
    #[derive(Debug, Deserialize)]
    struct Shape {
        s: String,
        d: Inner,
    }
    let good = rawdoc! { "s": "abc", "d": { "x": 1 } }.into_bytes();
    assert!(agree_bytes::<Shape>(&good, "good").is_ok());
    let at_string = good.windows(2).position(|w| w == b"s\0").unwrap() + 2;
    let at_doc = good.windows(2).position(|w| w == b"d\0").unwrap() + 2;
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for delta in [-1i32, 1] {
        for (name, at) in [
            ("outer", 0),
            ("string", at_string),
            ("sub-document", at_doc),
        ] {
            let mut case = good.clone();
            let len = i32::from_le_bytes(case[at..at + 4].try_into().unwrap());
            case[at..at + 4].copy_from_slice(&(len + delta).to_le_bytes());
            cases.push((format!("{name} length {delta:+}"), case));
        }
    }
    let mut trailing = good.clone();
    trailing.push(0);
    cases.push(("a byte after the end".into(), trailing));
    let mut trailing_counted = good.clone();
    trailing_counted.push(0);
    let len = trailing_counted.len() as i32;
    trailing_counted[..4].copy_from_slice(&len.to_le_bytes());
    cases.push(("two NULs at the end".into(), trailing_counted));
    for (name, case) in &cases {
        assert_eq!(agree_bytes::<Shape>(case, name), Err(()), "{name}");
        assert_eq!(agree_bytes::<Document>(case, name), Err(()), "{name}");
    }
}
