//! The direct decoding of scalars equals `bson`'s, and leaves to `bson`
//! everything it would check.

use mongodb::bson::oid::ObjectId;
use mongodb::bson::{doc, rawdoc, Bson, DateTime, RawDocumentBuf};

use super::scan::{elements, Elem};

fn elem_of(bytes: &[u8]) -> Elem<'_> {
    elements(bytes).unwrap()[0]
}

/// `{v: value}` decodes the same directly and through `bson`, compared by
/// bytes (so NaN equals itself), and back to the same bytes.
fn assert_decodes_as_bson(value: Bson) {
    let encode = |v: &Bson| RawDocumentBuf::try_from(&doc! { "v": v.clone() }).unwrap();
    let raw = encode(&value);
    let elem = elem_of(raw.as_bytes());
    let fast = elem.decode().unwrap();
    let slow = elem.decode_with_bson().unwrap();
    assert_eq!(encode(&fast), encode(&slow), "{value:?}");
    assert_eq!(encode(&fast), raw, "{value:?}");
}

/// A `{v: value}` whose bytes `spoil` breaks is refused both ways.
fn assert_refused_both_ways(value: Bson, spoil: impl FnOnce(&mut Vec<u8>)) {
    let mut raw = RawDocumentBuf::try_from(&doc! { "v": value })
        .unwrap()
        .into_bytes();
    spoil(&mut raw);
    let elem = elem_of(&raw);
    assert!(elem.decode().is_err());
    assert!(elem.decode_with_bson().is_err());
}

#[test]
fn scalars_decode_as_bson_decodes_them() {
    let values = [
        Bson::Double(-0.0),
        Bson::Double(f64::NAN),
        Bson::Double(1234.5),
        Bson::String(String::new()),
        Bson::String("héllo \0 wörld".into()),
        Bson::ObjectId(ObjectId::from_bytes([7; 12])),
        Bson::Boolean(true),
        Bson::Boolean(false),
        Bson::DateTime(DateTime::from_millis(-1)),
        Bson::Null,
        Bson::Int32(i32::MIN),
        Bson::Int64(i64::MAX),
    ];
    for value in values {
        assert_decodes_as_bson(value);
    }
}

#[test]
fn what_bson_checks_is_left_to_bson() {
    // A boolean byte of 2.
    let mut raw = RawDocumentBuf::try_from(&doc! { "v": true })
        .unwrap()
        .into_bytes();
    let at = raw.len() - 2;
    raw[at] = 2;
    let elem = elem_of(&raw);
    assert!(elem.decode().is_err());
    assert!(elem.decode_with_bson().is_err());
    // A string that is not UTF-8, or whose length does not match.
    let mut raw = RawDocumentBuf::try_from(&doc! { "v": "ab" })
        .unwrap()
        .into_bytes();
    let at = raw.len() - 3;
    raw[at] = 0xff;
    let elem = elem_of(&raw);
    assert!(elem.decode().is_err());
    assert!(elem.decode_with_bson().is_err());
    let bad_nul = Elem {
        tag: 0x02,
        key: b"v",
        value: &[3, 0, 0, 0, b'a', b'b', b'c'],
    };
    assert!(bad_nul.decode().is_err());
    let bad_len = Elem {
        tag: 0x02,
        key: b"v",
        value: &[0, 0, 0, 0],
    };
    assert!(bad_len.decode().is_err());
}

#[test]
fn common_prefixes_are_counted_to_the_first_differing_byte() {
    use super::scan::common_prefix;
    let a: Vec<u8> = (0..100).collect();
    for at in [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 99] {
        let mut b = a.clone();
        b[at] ^= 0x40;
        assert_eq!(common_prefix(&a, &b), at, "{at}");
        assert_eq!(common_prefix(&b, &a), at, "{at}");
    }
    assert_eq!(common_prefix(&a, &a), 100);
    assert_eq!(common_prefix(&a[..40], &a), 40);
    assert_eq!(common_prefix(&a, &a[..17]), 17);
    assert_eq!(common_prefix(&[], &a), 0);
    // Past the first 1,024-byte blocks compared whole.
    let long: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
    for at in [1023, 1024, 1025, 2047, 2048, 3000, 4095, 4096, 4999] {
        let mut b = long.clone();
        b[at] ^= 1;
        assert_eq!(common_prefix(&long, &b), at, "{at}");
        assert_eq!(common_prefix(&b[..at + 1], &long), at, "{at}");
    }
    assert_eq!(common_prefix(&long, &long), 5000);
    assert_eq!(common_prefix(&long[..3000], &long), 3000);
}

#[test]
fn arrays_decode_element_by_element_as_bson_decodes_them() {
    let arrays = [
        Bson::Array(vec![]),
        Bson::Array(vec![Bson::Int32(1), Bson::String("x".into()), Bson::Null]),
        Bson::Array(vec![
            Bson::Array(vec![Bson::Int64(2), Bson::Array(vec![])]),
            Bson::Document(doc! { "a": [1, { "b": "c" }], "d": 1.5 }),
            Bson::Double(f64::NAN),
        ]),
        Bson::Array((0..1000).map(|i| Bson::Int64(i * 7)).collect()),
    ];
    for value in arrays {
        assert_decodes_as_bson(value);
    }
    // An element bson refuses is refused inside an array too: a boolean
    // byte of 2, an element of an unknown type.
    let array = |v: Bson| Bson::Array(vec![v]);
    assert_refused_both_ways(array(Bson::Boolean(true)), |raw| {
        let at = raw.len() - 3;
        raw[at] = 2;
    });
    assert_refused_both_ways(array(Bson::Int32(1)), |raw| raw[11] = 0x55);
}

#[test]
fn documents_decode_field_by_field_as_bson_decodes_them() {
    let documents = [
        doc! {},
        doc! { "_id": ObjectId::from_bytes([7; 12]), "author": "a", "text": "é", "likes": 3 },
        doc! { "a": { "b": { "c": [1, { "d": null }] } }, "$x": { "$oid": "not one" } },
        doc! { "when": DateTime::from_millis(5), "n": 1.5, "big": 1_i64 << 40, "ok": true },
        doc! { "bin": Bson::Binary(mongodb::bson::Binary {
            subtype: mongodb::bson::spec::BinarySubtype::Generic,
            bytes: vec![1, 2],
        }) },
    ];
    for value in documents {
        assert_decodes_as_bson(Bson::Document(value));
    }
    // A key repeated: the first place, the last value, as `bson` keeps it.
    let mut raw = RawDocumentBuf::try_from(&doc! { "v": { "a": 1, "b": 2, "c": 3 } })
        .unwrap()
        .into_bytes();
    let c = raw.iter().rposition(|&b| b == b'c').unwrap();
    raw[c] = b'a';
    let elem = elem_of(&raw);
    assert_eq!(elem.decode().unwrap(), elem.decode_with_bson().unwrap());
    // What bson refuses inside a document is refused too: a boolean byte
    // of 2, a key that is not UTF-8.
    let document = |v: Bson| Bson::Document(doc! { "k": v });
    assert_refused_both_ways(document(Bson::Boolean(true)), |raw| {
        let at = raw.len() - 3;
        raw[at] = 2;
    });
    assert_refused_both_ways(document(Bson::Int32(1)), |raw| raw[12] = 0xFF);
}

#[test]
fn a_walk_after_a_prefix_starts_past_its_elements_only_when_they_are_the_first() {
    use crate::codec::scan::after_prefix;
    let prefix = rawdoc! { "a": 1, "b": "x" };
    let rest = |doc: &RawDocumentBuf| -> Option<Vec<String>> {
        let mut walk = after_prefix(doc.as_bytes(), prefix.as_bytes())?;
        let mut keys = Vec::new();
        while let Some(elem) = walk.next_elem().unwrap() {
            keys.push(String::from_utf8(elem.key.to_vec()).unwrap());
        }
        Some(keys)
    };
    let keys = |k: &[&str]| Some(k.iter().map(|k| k.to_string()).collect::<Vec<_>>());
    assert_eq!(rest(&rawdoc! { "a": 1, "b": "x" }), keys(&[]));
    assert_eq!(
        rest(&rawdoc! { "a": 1, "b": "x", "c": 2, "__v": 3 }),
        keys(&["c", "__v"])
    );
    // Another value, another order, another type, or fewer elements: none.
    assert_eq!(rest(&rawdoc! { "a": 1, "b": "y", "c": 2 }), None);
    assert_eq!(rest(&rawdoc! { "b": "x", "a": 1 }), None);
    assert_eq!(rest(&rawdoc! { "a": 1_i64, "b": "x" }), None);
    assert_eq!(rest(&rawdoc! { "a": 1 }), None);
    // An empty prefix: every element is after it.
    let all = after_prefix(prefix.as_bytes(), rawdoc! {}.as_bytes()).unwrap();
    assert_eq!(all.at(), 4);
    // A document whose length is off is no walk.
    let mut bad = rawdoc! { "a": 1, "b": "x", "c": 2 }.into_bytes();
    bad[0] += 1;
    assert!(after_prefix(&bad, prefix.as_bytes()).is_none());
}
