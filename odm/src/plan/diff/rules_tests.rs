//! The rules of issue 9: removals judged by MongoDB's equality, assignments
//! and identity changes read as whole-array writes, keys that cannot be
//! paths, and linear lookups.

use mongodb::bson::oid::ObjectId;
use mongodb::bson::{bson, rawdoc, Bson, RawDocumentBuf};

use super::{diff, Change, Op};

fn one(old: RawDocumentBuf, new: RawDocumentBuf) -> Change {
    let mut changes = diff(&old, &new).unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    changes.pop().unwrap()
}

fn whole(path: &str, value: Bson) -> Change {
    Change::new(Op::Set, path.into(), value, false)
}

#[test]
fn removing_a_value_another_equal_value_stays_for_sets_the_array() {
    // The server would pull -0.0 with 0.0, and 1.0 with Int32 1.
    assert_eq!(
        one(rawdoc! {"f": [0.0, -0.0, 1.0]}, rawdoc! {"f": [-0.0, 1.0]}),
        whole("f", bson!([-0.0, 1.0]))
    );
    assert_eq!(
        one(rawdoc! {"m": [1, 1.0, "1"]}, rawdoc! {"m": [1.0, "1"]}),
        whole("m", bson!([1.0, "1"]))
    );
    assert_eq!(
        one(rawdoc! {"m": [1_i64, 2, 1]}, rawdoc! {"m": [2, 1]}),
        whole("m", bson!([2, 1]))
    );
}

#[test]
fn removing_every_equal_value_is_one_guarded_pull() {
    let change = one(rawdoc! {"m": [1, 2, 1.0, 3, 1_i64]}, rawdoc! {"m": [2, 3]});
    assert_eq!(change.op, Op::PullAll);
    assert_eq!(change.value, bson!([1]));
    assert_eq!(change.counts, [3]);
    let change = one(rawdoc! {"s": ["a", "b", "a"]}, rawdoc! {"s": ["b"]});
    assert_eq!((change.value, change.counts), (bson!(["a"]), vec![2]));
}

#[test]
fn nan_documents_and_decimals_are_never_pulled_by_value() {
    use mongodb::bson::Decimal128;
    let d: Decimal128 = "1".parse().unwrap();
    for (old, new) in [
        (rawdoc! {"f": [f64::NAN, 1.0]}, rawdoc! {"f": [1.0]}),
        (rawdoc! {"f": [[{"a": 1}], [2]]}, rawdoc! {"f": [[2]]}),
        (rawdoc! {"f": [{"a": 1}, 2]}, rawdoc! {"f": [2]}),
        (rawdoc! {"f": [1, d]}, rawdoc! {"f": [d]}),
    ] {
        let change = one(old, new);
        assert_eq!(change.op, Op::Set, "{change:?}");
    }
}

#[test]
fn arrays_of_primitives_are_pulled_by_value() {
    let change = one(
        rawdoc! {"g": [[1, 2], [3], [1.0, 2.0]]},
        rawdoc! {"g": [[3]]},
    );
    assert_eq!(change.op, Op::PullAll);
    assert_eq!((change.value, change.counts), (bson!([[1, 2]]), vec![2]));
}

#[test]
fn many_distinct_removed_values_set_the_array() {
    let old: Vec<i32> = (0..100).collect();
    let new: Vec<i32> = (0..100).filter(|n| n % 2 == 0).collect();
    let raw = |v: &[i32]| crate::bson_release::testing::raw(&mongodb::bson::doc! {"n": v});
    let change = one(raw(&old), raw(&new));
    assert_eq!(change, whole("n", bson!(new)));
}

#[test]
fn pulled_ids_compare_by_value() {
    // Removing the sub-document with id 1 would pull the one with 1.0 too.
    let change = one(
        rawdoc! {"c": [{"_id": 1, "x": 1}, {"_id": 1.0, "x": 2}]},
        rawdoc! {"c": [{"_id": 1.0, "x": 2}]},
    );
    assert_eq!(change.op, Op::Set);
    // Ids that are documents compare by field order: never pulled by them.
    let change = one(
        rawdoc! {"c": [{"_id": {"a": 1}}, {"_id": {"a": 2}}]},
        rawdoc! {"c": [{"_id": {"a": 2}}]},
    );
    assert_eq!(change.op, Op::Set);
}

#[test]
fn a_same_length_assignment_sets_the_array() {
    assert_eq!(
        one(rawdoc! {"t": ["a", "b"]}, rawdoc! {"t": ["x", "y"]}),
        whole("t", bson!(["x", "y"]))
    );
    assert_eq!(
        one(rawdoc! {"t": ["a"]}, rawdoc! {"t": ["x"]}),
        whole("t", bson!(["x"]))
    );
    // One element kept: edits in place.
    let changes = diff(&rawdoc! {"t": [1, 2, 3]}, &rawdoc! {"t": [7, 2, 8]}).unwrap();
    assert!(changes.iter().all(|c| c.positional && c.op == Op::Set));
}

#[test]
fn a_sub_document_with_another_id_at_a_position_sets_the_array() {
    let (a, b, c) = (ObjectId::new(), ObjectId::new(), ObjectId::new());
    // Replaced: pulled b, pushed c, same length.
    let change = one(
        rawdoc! {"c": [{"_id": a, "t": "x"}, {"_id": b, "t": "y"}]},
        rawdoc! {"c": [{"_id": a, "t": "x"}, {"_id": c, "t": "y"}]},
    );
    assert_eq!(change.op, Op::Set);
    assert_eq!(change.path, "c");
    // Moved, with an edit: still the whole array.
    let change = one(
        rawdoc! {"c": [{"_id": a, "t": "x"}, {"_id": b, "t": "y"}]},
        rawdoc! {"c": [{"_id": b, "t": "y2"}, {"_id": a, "t": "x"}]},
    );
    assert_eq!(change.path, "c");
    // Same ids, edited fields: positional.
    let changes = diff(
        &rawdoc! {"c": [{"_id": a, "t": "x"}, {"_id": b, "t": "y"}]},
        &rawdoc! {"c": [{"_id": a, "t": "x2"}, {"_id": b, "t": "y2"}]},
    )
    .unwrap();
    let paths: Vec<_> = changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["c.0.t", "c.1.t"]);
}

#[test]
fn a_key_that_is_not_a_path_sets_its_whole_map() {
    for key in ["a.b", "$x", ""] {
        let mut old = mongodb::bson::Document::new();
        old.insert("m", mongodb::bson::doc! { "ok": 1, key: 1 });
        let mut new = old.clone();
        new.get_document_mut("m").unwrap().insert(key, 2);
        let (old, new) = (
            crate::bson_release::testing::raw(&old),
            crate::bson_release::testing::raw(&new),
        );
        let expected = new.get("m").unwrap().unwrap();
        let map = |value| Change::new(Op::Whole, "m".into(), value, false);
        assert_eq!(
            one(old.clone(), new.clone()),
            map(Bson::try_from(expected).unwrap()),
            "{key:?}"
        );
        // Removed: the same.
        let none = rawdoc! {"m": {"ok": 1}};
        assert_eq!(one(old, none), map(bson!({"ok": 1})), "{key:?}");
    }
    // Deeper: the innermost document holding the key, positional in arrays.
    let change = one(
        rawdoc! {"c": [{"m": {"a.b": 1}}]},
        rawdoc! {"c": [{"m": {"a.b": 2}}]},
    );
    assert_eq!(
        change,
        Change::new(Op::Whole, "c.0.m".into(), bson!({"a.b": 2}), true)
    );
    // Unchanged awkward keys do not matter.
    let change = one(
        rawdoc! {"m": {"a.b": 1, "x": 1}},
        rawdoc! {"m": {"a.b": 1, "x": 2}},
    );
    assert_eq!(change.path, "m.x");
}

#[test]
fn a_top_level_key_that_is_not_a_path_is_an_error() {
    let err = diff(&rawdoc! {"a": 1}, &rawdoc! {"a": 1, "x.y": 2}).unwrap_err();
    assert!(err.to_string().contains("\"x.y\""), "{err}");
}

#[test]
fn large_maps_diff_by_key_whatever_their_order() {
    let mut old = mongodb::bson::Document::new();
    for i in 0..2000 {
        old.insert(format!("k{i}"), i);
    }
    // The same map, keys in reverse order, one value changed.
    let mut new = mongodb::bson::Document::new();
    for i in (0..2000).rev() {
        new.insert(format!("k{i}"), if i == 7 { -1 } else { i });
    }
    let (old, new) = (
        rawdoc! {"m": crate::bson_release::testing::raw(&old)},
        rawdoc! {"m": crate::bson_release::testing::raw(&new)},
    );
    assert_eq!(
        diff(&old, &new).unwrap(),
        vec![Change::new(Op::Set, "m.k7".into(), bson!(-1), false)]
    );
}
