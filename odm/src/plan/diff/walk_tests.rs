//! Array and value changes as the diff infers them, pinned down so the
//! raw-byte walker keeps them exactly (these also pass on the diff that
//! decoded every value through `bson`).

use mongodb::bson::oid::ObjectId;
use mongodb::bson::{bson, rawdoc, Bson};

use super::{diff, Change, Op};

fn change(op: Op, path: &str, value: Bson, positional: bool) -> Change {
    Change {
        op,
        path: path.into(),
        value,
        positional,
        counts: Vec::new(),
        drops: false,
    }
}

fn oid(n: u8) -> ObjectId {
    ObjectId::from_bytes([n; 12])
}

#[test]
fn an_append_is_a_push_of_the_new_elements() {
    let old = rawdoc! { "t": ["a", "b"], "c": [{ "_id": oid(1), "x": 1 }] };
    let new = rawdoc! {
        "t": ["a", "b", "c", "d"],
        "c": [{ "_id": oid(1), "x": 1 }, { "_id": oid(2), "x": 2.5 }],
    };
    assert_eq!(
        diff(&old, &new).unwrap(),
        vec![
            change(Op::Push, "t", bson!(["c", "d"]), false),
            change(Op::Push, "c", bson!([{ "_id": oid(2), "x": 2.5 }]), false),
        ]
    );
}

#[test]
fn removals_are_pulls() {
    let old = rawdoc! {
        "t": ["a", "b", "a", "c"],
        "c": [{ "_id": oid(1) }, { "_id": oid(2) }, { "_id": oid(3) }],
    };
    let new = rawdoc! { "t": ["b", "c"], "c": [{ "_id": oid(2) }] };
    let mut pull = change(Op::PullAll, "t", bson!(["a"]), false);
    pull.counts = vec![2];
    assert_eq!(
        diff(&old, &new).unwrap(),
        vec![
            pull,
            change(Op::PullIds, "c", bson!([oid(1), oid(3)]), false),
        ]
    );
}

#[test]
fn in_place_edits_are_positional_sets() {
    let old = rawdoc! { "c": [{ "_id": oid(1), "x": 1, "y": "a" }, { "_id": oid(2), "x": 2 }], "n": [1, 2, 3] };
    let new = rawdoc! { "c": [{ "_id": oid(1), "x": 1, "y": "b" }, { "_id": oid(2), "x": 3 }], "n": [1, 5, 3] };
    assert_eq!(
        diff(&old, &new).unwrap(),
        vec![
            change(Op::Set, "c.0.y", bson!("b"), true),
            change(Op::Set, "c.1.x", bson!(3), true),
            change(Op::Set, "n.1", bson!(5), true),
        ]
    );
}

#[test]
fn anything_else_sets_the_whole_array_or_value() {
    let old = rawdoc! {
        "reordered": [1, 2, 3],
        "kept_removed": ["a", "b", "a"],
        "no_ids": [{ "x": 1 }, { "x": 2 }],
        "typed": 1,
        "nan": f64::NAN,
        "to_doc": [1],
    };
    let new = rawdoc! {
        "reordered": [3, 2],
        "kept_removed": ["a"],
        "no_ids": [{ "x": 1 }],
        "typed": 1i64,
        "nan": f64::NAN,
        "to_doc": { "a": 1 },
    };
    assert_eq!(
        diff(&old, &new).unwrap(),
        vec![
            change(Op::Set, "reordered", bson!([3, 2]), false),
            change(Op::Set, "kept_removed", bson!(["a"]), false),
            change(Op::Set, "no_ids", bson!([{ "x": 1 }]), false),
            change(Op::Set, "typed", bson!(1i64), false),
            change(Op::Set, "to_doc", bson!({ "a": 1 }), false),
        ]
    );
}

#[test]
fn every_value_type_round_trips_into_the_update() {
    use mongodb::bson::{Binary, DateTime, Decimal128, Timestamp};
    let values = [
        Bson::Double(1.5),
        Bson::String("é".into()),
        Bson::Boolean(true),
        Bson::Null,
        Bson::Int32(-1),
        Bson::Int64(1 << 40),
        Bson::ObjectId(oid(9)),
        Bson::DateTime(DateTime::from_millis(-5)),
        Bson::Timestamp(Timestamp {
            time: 1,
            increment: 2,
        }),
        Bson::Binary(Binary {
            subtype: mongodb::bson::spec::BinarySubtype::Generic,
            bytes: vec![1, 2, 3],
        }),
        Bson::RegularExpression(crate::bson_release::testing::regex("a+", "i")),
        Bson::Decimal128(Decimal128::from_bytes([7; 16])),
        Bson::MinKey,
        Bson::MaxKey,
        Bson::JavaScriptCode("f()".into()),
        Bson::Array(vec![Bson::Int32(1), Bson::String("x".into())]),
        Bson::Document(mongodb::bson::doc! { "k": [1, { "z": Bson::Null }] }),
    ];
    let old = rawdoc! { "v": "before" };
    for value in values {
        let mut new = mongodb::bson::Document::new();
        new.insert("v", value.clone());
        let new = crate::bson_release::testing::raw(&new);
        assert_eq!(
            diff(&old, &new).unwrap(),
            vec![change(Op::Set, "v", value, false)]
        );
    }
}
