//! The fast path decodes exactly what `bson` decodes, and gives up (never
//! guesses) on everything it does not cover and on every failure.

// The types exist to be decoded and compared through `Debug`.
#![allow(dead_code)]

use crate::codec::keys::Hidden;
use std::collections::BTreeMap;
use std::fmt::Debug;

use mongodb::bson::oid::ObjectId;
use mongodb::bson::{
    doc, rawdoc, Binary, Bson, DateTime, Decimal128, Document, RawDocumentBuf, Timestamp, Uuid,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::from_slice;
use crate::codec::strict::Strict;

/// Asserts the fast path covers `bytes` and decodes what `bson` decodes,
/// directly and through the fallback's `Strict` wrapper.
fn same_value<T: DeserializeOwned + Debug>(bytes: &[u8]) -> T {
    let expected: T = crate::bson_release::testing::from_slice(bytes).expect("bson decodes it");
    let fast: T = from_slice(bytes, Hidden::NONE).expect("on the fast path");
    assert_eq!(format!("{fast:?}"), format!("{expected:?}"));
    let strict: Strict<T> =
        crate::bson_release::testing::from_slice(bytes).expect("the fallback decodes it");
    assert_eq!(format!("{:?}", strict.0), format!("{expected:?}"));
    fast
}

/// Asserts the fast path declines `bytes` (the caller then uses `bson`).
fn gives_up<T: DeserializeOwned + Debug>(bytes: &[u8]) {
    assert!(
        from_slice::<T>(bytes, Hidden::NONE).is_none(),
        "{:?}",
        from_slice::<T>(bytes, Hidden::NONE)
    );
}

fn bytes(doc: &Document) -> Vec<u8> {
    crate::bson_release::testing::to_vec(doc).unwrap()
}

fn oid(n: u8) -> ObjectId {
    ObjectId::from_bytes([n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, n])
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct Sub {
    #[serde(rename = "_id")]
    id: ObjectId,
    text: String,
    likes: i32,
}

#[derive(Debug, Deserialize)]
enum Status {
    Draft,
    Published,
}

#[derive(Debug, Deserialize)]
enum Shape {
    Circle(f64),
    Rect { w: i32, h: i32 },
    Pair(i32, String),
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Loose {
    Number(i64),
    Text(String),
    Sub(Sub),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Everything {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
    empty: String,
    unicode: String,
    flag: bool,
    tiny: i8,
    small: i16,
    int: i32,
    long: i64,
    widened: i64,
    byte: u8,
    word: u16,
    unsigned: u32,
    big: u64,
    single: f32,
    double: f64,
    nan: f64,
    letter: char,
    created_at: DateTime,
    maybe_text: Option<String>,
    null_text: Option<String>,
    #[serde(default)]
    missing_text: Option<String>,
    #[serde(default)]
    missing_count: i32,
    maybe_id: Option<ObjectId>,
    maybe_date: Option<DateTime>,
    ids: Vec<ObjectId>,
    numbers: Vec<i64>,
    nested: Vec<Vec<String>>,
    subs: Vec<Sub>,
    one: Sub,
    map: BTreeMap<String, i32>,
    status: Status,
    shapes: Vec<Shape>,
    loose: Vec<Loose>,
    any: Vec<Bson>,
    document: Document,
    pair: (i32, String),
    unit: (),
}

fn everything() -> Document {
    let mut doc = doc! {
        "_id": oid(1),
        "name": "Ada",
        "empty": "",
        "unicode": "héllo wörld ✓ 🦀",
        "flag": true,
        "tiny": -5,
        "small": 300,
        "int": i32::MIN,
        "long": i64::MAX,
        "widened": 7_i32,
        "byte": 255,
        "word": 65535,
        "unsigned": 4_000_000_000_i64,
        "big": 9_000_000_000_i64,
        "single": 1.5,
        "double": -0.0,
        "nan": f64::NAN,
        "letter": "x",
        "createdAt": DateTime::from_millis(1_767_225_600_123),
        "maybeText": "here",
        "nullText": null,
        "maybeId": oid(2),
        "maybeDate": DateTime::from_millis(-1),
    };
    doc.extend(doc! {
        "ids": [oid(3), oid(4)],
        "numbers": [1_i32, 2_i64, 3_i32],
        "nested": [["a", "b"], [], ["c"]],
        "subs": [
            { "_id": oid(5), "text": "first", "likes": 0 },
            { "_id": oid(6), "likes": 16, "text": "second", "extra": { "deep": [1, 2] } },
        ],
        "one": { "_id": oid(7), "text": "only", "likes": 3 },
        "map": { "b": 2, "a": 1 },
        "status": "Published",
        "shapes": [
            { "Circle": 2.5 },
            { "Rect": { "w": 3, "h": 4 } },
            { "Pair": [1, "one"] },
        ],
        "loose": [5_i32, "five", { "_id": oid(8), "text": "t", "likes": 1 }],
        "any": [
            1_i32, 2_i64, 3.5, "s", true, null, oid(9), DateTime::from_millis(42),
            { "k": [1, { "x": null }] }, [],
        ],
        "document": { "a": 1, "b": { "c": oid(10), "d": DateTime::from_millis(0) } },
        "pair": [9, "nine"],
        "unit": null,
        "unknownString": "ignored",
        "unknownDoc": { "x": [1, 2, { "y": oid(11) }], "t": DateTime::now() },
        "__v": 3,
    });
    doc
}

#[test]
fn decodes_every_supported_type_like_bson() {
    let value: Everything = same_value(&bytes(&everything()));
    // Spot checks that the comparison saw real values.
    assert_eq!(value.widened, 7);
    assert_eq!(value.missing_count, 0);
    assert_eq!(value.missing_text, None);
    assert_eq!(value.null_text, None);
    assert_eq!(value.subs[1].likes, 16);
    assert_eq!(value.any[6], Bson::ObjectId(oid(9)));
    assert_eq!(value.any[7], Bson::DateTime(DateTime::from_millis(42)));
}

#[test]
fn decodes_into_bson_document_like_bson() {
    same_value::<Document>(&bytes(&everything()));
    same_value::<Bson>(&bytes(&everything()));
    same_value::<BTreeMap<String, Bson>>(&bytes(&doc! { "a": oid(1), "b": [1, 2] }));
}

#[test]
fn decodes_an_empty_document() {
    #[derive(Debug, Deserialize)]
    struct Empty {}
    same_value::<Empty>(&bytes(&doc! {}));
    same_value::<Document>(&bytes(&doc! {}));
}

#[test]
fn flattened_and_defaulted_structs_match_bson() {
    #[derive(Debug, Deserialize)]
    struct Flat {
        #[serde(rename = "_id")]
        id: ObjectId,
        #[serde(flatten)]
        rest: BTreeMap<String, Bson>,
    }
    #[derive(Debug, Deserialize)]
    #[serde(default)]
    struct Defaults {
        a: i32,
        b: String,
        c: Vec<i64>,
    }
    impl Default for Defaults {
        fn default() -> Self {
            Defaults {
                a: 1,
                b: "dflt".into(),
                c: vec![7],
            }
        }
    }
    let doc = doc! { "_id": oid(1), "when": DateTime::from_millis(5), "n": 1_i64, "s": "x" };
    same_value::<Flat>(&bytes(&doc));
    same_value::<Defaults>(&bytes(&doc! { "b": "set" }));
}

#[test]
fn other_element_types_go_to_bson() {
    let cases = [
        doc! { "x": Binary { subtype: mongodb::bson::spec::BinarySubtype::Generic, bytes: vec![1, 2] } },
        doc! { "x": Decimal128::from_bytes([0; 16]) },
        doc! { "x": Timestamp { time: 1, increment: 2 } },
        doc! { "x": crate::bson_release::testing::regex("a", "i") },
        doc! { "x": Bson::MinKey },
        doc! { "x": Bson::Undefined },
        doc! { "x": Bson::JavaScriptCode("1".into()) },
    ];
    for case in &cases {
        gives_up::<Document>(&bytes(case));
        // Even in a field the type ignores.
        #[derive(Debug, Deserialize)]
        struct Nothing {}
        gives_up::<Nothing>(&bytes(case));
        let expected = crate::bson_release::testing::from_slice::<Document>(&bytes(case)).unwrap();
        let strict =
            crate::bson_release::testing::from_slice::<Strict<Document>>(&bytes(case)).unwrap();
        assert_eq!(strict.0, expected);
    }
}

#[test]
fn bson_private_newtypes_go_to_bson() {
    #[derive(Debug, Deserialize)]
    struct WithUuid {
        x: Uuid,
    }
    #[derive(Debug, Deserialize)]
    struct WithRaw {
        x: RawDocumentBuf,
    }
    let uuid = Uuid::from_bytes([7; 16]);
    let with_uuid = bytes(&doc! { "x": uuid });
    gives_up::<WithUuid>(&with_uuid);
    assert!(crate::bson_release::testing::from_slice::<WithUuid>(&with_uuid).is_ok());
    let with_raw = bytes(&doc! { "x": { "a": 1 } });
    gives_up::<WithRaw>(&with_raw);
    assert!(crate::bson_release::testing::from_slice::<WithRaw>(&with_raw).is_ok());
}

#[test]
fn every_failure_goes_to_bson() {
    #[derive(Debug, Deserialize)]
    struct Exact {
        n: i32,
        s: String,
    }
    #[derive(Debug, Deserialize)]
    struct Wide {
        n: i128,
    }
    let cases: Vec<Vec<u8>> = vec![
        bytes(&doc! { "n": 1 }),                           // missing field
        bytes(&doc! { "n": "1", "s": "x" }),               // wrong type
        bytes(&doc! { "n": 3_000_000_000_i64, "s": "x" }), // out of range
        bytes(&doc! { "n": 1.5, "s": "x" }),               // double for an int
        bytes(&doc! { "n": null, "s": "x" }),              // null for an int
    ];
    for case in &cases {
        gives_up::<Exact>(case);
        assert!(crate::bson_release::testing::from_slice::<Exact>(case).is_err());
    }
    let wide = bytes(&doc! { "n": 1 });
    gives_up::<Wide>(&wide);
    assert!(crate::bson_release::testing::from_slice::<Wide>(&wide).is_err());
}

#[test]
fn malformed_bytes_go_to_bson() {
    let good = rawdoc! { "s": "abc", "b": true, "d": { "x": 1 } }.into_bytes();
    // Invalid UTF-8 in a string.
    let mut bad_utf8 = good.clone();
    let at = bad_utf8.windows(3).position(|w| w == b"abc").unwrap();
    bad_utf8[at] = 0xFF;
    // A boolean stored as 2.
    let mut bad_bool = good.clone();
    let at = bad_bool.windows(2).position(|w| w == b"b\0").unwrap();
    bad_bool[at + 2] = 2;
    // Truncated, and a wrong outer length.
    let truncated = good[..good.len() - 3].to_vec();
    let mut long = good.clone();
    long[0] += 1;
    long.push(0);
    for case in [&bad_utf8, &bad_bool, &truncated, &long] {
        gives_up::<Document>(case);
        assert!(crate::bson_release::testing::from_slice::<Document>(case).is_err());
    }
}

/// Every single-byte corruption of a realistic document: whenever the fast
/// path accepts the bytes, `bson` accepts them too and decodes the same.
#[test]
fn never_accepts_what_bson_rejects() {
    let original = bytes(&doc! {
        "_id": oid(1),
        "text": "some text",
        "likes": 4,
        "subs": [{ "_id": oid(2), "text": "é", "likes": 1 }],
    });
    #[derive(Debug, Deserialize)]
    struct Post {
        #[serde(rename = "_id")]
        id: ObjectId,
        text: String,
        likes: i32,
        subs: Vec<Sub>,
    }
    let mut accepted = 0;
    for i in 0..original.len() {
        for v in [0u8, 1, 2, 4, 5, 0x7F, 0x80, 0xFF] {
            let mut case = original.clone();
            case[i] = v;
            for (fast, name) in [
                (
                    from_slice::<Post>(&case, Hidden::NONE).map(|p| format!("{p:?}")),
                    "Post",
                ),
                (
                    from_slice::<Document>(&case, Hidden::NONE).map(|d| format!("{d:?}")),
                    "Document",
                ),
            ] {
                let Some(fast) = fast else { continue };
                accepted += 1;
                let expected = match name {
                    "Post" => crate::bson_release::testing::from_slice::<Post>(&case)
                        .map(|p| format!("{p:?}")),
                    _ => crate::bson_release::testing::from_slice::<Document>(&case)
                        .map(|d| format!("{d:?}")),
                };
                assert_eq!(
                    Ok(fast),
                    expected.map_err(|e| e.to_string()),
                    "byte {i} = {v}"
                );
            }
        }
    }
    assert!(accepted > 0);
}

/// Arrays tell their length, so a `Vec` is allocated once, at its size.
#[test]
fn sequences_are_sized_up_front() {
    #[derive(Debug, Deserialize)]
    struct Lists {
        subs: Vec<Sub>,
        tags: Vec<String>,
        empty: Vec<i32>,
    }
    let subs: Vec<Bson> = (0..50)
        .map(|i| Bson::Document(doc! { "_id": oid(i), "text": "t", "likes": i as i32 }))
        .collect();
    let tags: Vec<Bson> = (0..7).map(|i| Bson::String(format!("tag-{i}"))).collect();
    let lists: Lists = same_value(&bytes(&doc! { "subs": subs, "tags": tags, "empty": [] }));
    assert_eq!((lists.subs.len(), lists.subs.capacity()), (50, 50));
    assert_eq!((lists.tags.len(), lists.tags.capacity()), (7, 7));
    assert_eq!(lists.empty.capacity(), 0);
}

/// Struct keys are matched against the field names in any order, and keys
/// that are no field (unknown, or non-ASCII) are still read as text.
#[test]
fn struct_keys_in_any_order() {
    #[derive(Debug, Deserialize)]
    struct Named {
        alpha: i32,
        beta: String,
        #[serde(rename = "gämma")]
        gamma: bool,
        #[serde(flatten)]
        rest: BTreeMap<String, Bson>,
    }
    #[derive(Debug, Deserialize)]
    struct Plain {
        alpha: i32,
        beta: String,
    }
    let doc = doc! { "gämma": true, "zeta": 1, "beta": "b", "ünknown": "u", "alpha": 3 };
    let named: Named = same_value(&bytes(&doc));
    assert_eq!((named.alpha, named.gamma, named.rest.len()), (3, true, 2));
    let plain: Plain = same_value(&bytes(&doc));
    assert_eq!(plain.beta, "b");
}
