//! The fast path writes exactly the bytes `bson` writes, and gives up
//! (never guesses) on everything it does not cover.

use std::collections::BTreeMap;

use mongodb::bson::oid::ObjectId;
use mongodb::bson::{doc, rawdoc, Binary, Bson, DateTime, Decimal128, Timestamp};
use serde::Serialize;

use super::to_vec;

/// Asserts the fast path covers `value` and agrees with `bson`.
fn same_bytes<T: Serialize>(value: &T) {
    let expected = crate::bson_release::testing::to_vec(value).expect("bson serializes it");
    let fast = to_vec(value, 0).expect("on the fast path");
    assert_eq!(fast, expected);
}

/// Asserts the fast path declines `value` (the caller then uses `bson`).
fn gives_up<T: Serialize>(value: &T) {
    assert_eq!(to_vec(value, 0), None);
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Scalars {
    #[serde(rename = "_id")]
    id: ObjectId,
    flag: bool,
    tiny: i8,
    small: i16,
    int: i32,
    long: i64,
    byte: u8,
    word: u16,
    unsigned: u32,
    big: u64,
    single: f32,
    double: f64,
    nan: f64,
    letter: char,
    text: String,
    empty: String,
    unicode: String,
    created_at: DateTime,
    before_epoch: DateTime,
    nothing: Option<i32>,
    something: Option<String>,
    unit: (),
}

fn scalars() -> Scalars {
    Scalars {
        id: ObjectId::parse_str("65a1b2c3d4e5f60718293a4b").unwrap(),
        flag: true,
        tiny: -8,
        small: -1600,
        int: i32::MIN,
        long: i64::MAX,
        byte: 255,
        word: 65535,
        unsigned: u32::MAX,
        big: i64::MAX as u64,
        single: 1.5,
        double: -0.0,
        nan: f64::NAN,
        letter: 'é',
        text: "hello world".into(),
        empty: String::new(),
        unicode: "日本語 ✓".into(),
        created_at: DateTime::from_millis(1_767_225_600_123),
        before_epoch: DateTime::from_millis(-86_400_000),
        nothing: None,
        something: Some("x".into()),
        unit: (),
    }
}

#[derive(Serialize)]
enum Status {
    Active,
    #[serde(rename = "on-hold")]
    OnHold,
}

#[derive(Serialize)]
enum Shape {
    Circle(f64),
}

#[derive(Serialize)]
struct Meters(f64);

#[derive(Serialize)]
struct Marker;

#[derive(Serialize)]
struct Comment {
    #[serde(rename = "_id")]
    id: ObjectId,
    author: String,
    likes: i32,
}

#[derive(Serialize)]
struct Extra {
    region: String,
}

#[derive(Serialize)]
struct Nested {
    status: Status,
    hold: Status,
    shape: Shape,
    length: Meters,
    marker: Marker,
    pair: (i32, String),
    comments: Vec<Comment>,
    tags: Vec<String>,
    matrix: Vec<Vec<i64>>,
    empty: Vec<i32>,
    counts: BTreeMap<String, u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<i32>,
    #[serde(flatten)]
    extra: Extra,
}

fn comment(i: u8) -> Comment {
    Comment {
        id: ObjectId::from_bytes([i; 12]),
        author: format!("author {i}"),
        likes: i32::from(i % 17),
    }
}

#[test]
fn scalars_and_extended_types_match_bson() {
    same_bytes(&scalars());
}

#[test]
fn containers_and_enums_match_bson() {
    let value = Nested {
        status: Status::Active,
        hold: Status::OnHold,
        shape: Shape::Circle(2.5),
        length: Meters(3.0),
        marker: Marker,
        pair: (7, "seven".into()),
        // More than 10 and 100 elements: multi-digit index keys.
        comments: (0..=120).map(comment).collect(),
        tags: vec!["a".into(), "b".into()],
        matrix: vec![vec![1, 2], vec![], vec![3]],
        empty: vec![],
        counts: [("x".to_string(), 1), ("y".to_string(), 2)].into(),
        skipped: None,
        extra: Extra {
            region: "eu".into(),
        },
    };
    same_bytes(&value);
}

#[test]
fn maps_and_plain_bson_documents_match_bson() {
    let mut map = BTreeMap::new();
    map.insert("k".to_string(), vec![Some(1), None]);
    same_bytes(&map);
    same_bytes(&doc! {
        "s": "x", "i": 1, "l": 2i64, "d": 1.5, "b": false, "n": Bson::Null,
        "o": ObjectId::from_bytes([1; 12]), "t": DateTime::from_millis(5),
        "sub": { "a": [1, "two", { "three": 3 }] },
    });
}

#[test]
fn what_bson_treats_specially_is_left_to_bson() {
    #[derive(Serialize)]
    struct Wrap<T>(T);
    #[derive(Serialize)]
    struct Field<T> {
        v: T,
    }
    gives_up(&Field {
        v: Binary {
            subtype: mongodb::bson::spec::BinarySubtype::Generic,
            bytes: vec![1, 2, 3],
        },
    });
    gives_up(&Field {
        v: Timestamp {
            time: 1,
            increment: 2,
        },
    });
    gives_up(&Field {
        v: Decimal128::from_bytes([0; 16]),
    });
    gives_up(&Field {
        v: rawdoc! { "a": 1 },
    });
    gives_up(&Field { v: Bson::MinKey });
    gives_up(&Wrap(rawdoc! { "a": 1 }));
    #[derive(Serialize)]
    enum Variant {
        Pair(i32, i32),
        Named { a: i32 },
    }
    gives_up(&Field {
        v: Variant::Pair(1, 2),
    });
    gives_up(&Field {
        v: Variant::Named { a: 1 },
    });
}

#[test]
fn errors_are_left_to_bson() {
    #[derive(Serialize)]
    struct Field<T> {
        v: T,
    }
    // Out of range, a NUL in a key, a non-string key, a non-document root.
    gives_up(&Field { v: u64::MAX });
    let mut nul = BTreeMap::new();
    nul.insert("a\0b".to_string(), 1);
    gives_up(&nul);
    let mut numeric = BTreeMap::new();
    numeric.insert(1, 1);
    gives_up(&numeric);
    gives_up(&vec![1, 2]);
    gives_up(&"text");
    gives_up(&42i32);
    assert!(crate::bson_release::testing::to_vec(&Field { v: u64::MAX }).is_err());
    assert!(crate::bson_release::testing::to_vec(&nul).is_err());
}

#[test]
fn object_ids_in_either_case_are_read_and_bad_hex_gives_up() {
    #[derive(Serialize)]
    #[serde(rename = "$oid")]
    struct Oid {
        #[serde(rename = "$oid")]
        hex: &'static str,
    }
    #[derive(Serialize)]
    struct Field {
        v: Oid,
    }
    let upper = Field {
        v: Oid {
            hex: "65A1B2C3D4E5F60718293A4B",
        },
    };
    same_bytes(&upper);
    for bad in [
        "65a1b2c3d4e5f60718293a4g",
        "65a1",
        "65a1b2c3d4e5f60718293a4b00",
        "65a1b2c3d4e5f60718293a4ß",
    ] {
        gives_up(&Field {
            v: Oid { hex: bad },
        });
    }
    // A key of 30 or more bytes takes the other branch.
    let long = "k".repeat(40);
    let mut map = BTreeMap::new();
    map.insert(long, ObjectId::from_bytes([0xAB; 12]));
    same_bytes(&map);
}
