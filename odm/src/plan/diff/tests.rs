use mongodb::bson::oid::ObjectId;
use mongodb::bson::{bson, rawdoc, Bson, RawDocumentBuf};

use super::{diff, Change, Op};

fn changes(old: RawDocumentBuf, new: RawDocumentBuf) -> Vec<(Op, String, Bson, bool)> {
    diff(&old, &new)
        .unwrap()
        .into_iter()
        .map(
            |Change {
                 op,
                 path,
                 value,
                 positional,
                 ..
             }| (op, path, value, positional),
        )
        .collect()
}

fn one(op: Op, path: &str, value: Bson, positional: bool) -> Vec<(Op, String, Bson, bool)> {
    vec![(op, path.to_string(), value, positional)]
}

#[test]
fn identical_documents_have_no_changes() {
    assert!(changes(rawdoc! {"a": 1, "b": [1, 2]}, rawdoc! {"a": 1, "b": [1, 2]}).is_empty());
}

#[test]
fn scalar_change_is_a_set() {
    assert_eq!(
        changes(rawdoc! {"a": 1, "b": "x"}, rawdoc! {"a": 1, "b": "y"}),
        one(Op::Set, "b", bson!("y"), false)
    );
}

#[test]
fn nan_equals_itself() {
    assert!(changes(rawdoc! {"a": f64::NAN}, rawdoc! {"a": f64::NAN}).is_empty());
}

#[test]
fn type_change_is_a_set() {
    assert_eq!(
        changes(rawdoc! {"a": 1}, rawdoc! {"a": 1_i64}),
        one(Op::Set, "a", bson!(1_i64), false)
    );
}

#[test]
fn nested_change_sets_the_leaf() {
    assert_eq!(
        changes(
            rawdoc! {"meta": {"city": "a", "zip": 1}},
            rawdoc! {"meta": {"city": "b", "zip": 1}}
        ),
        one(Op::Set, "meta.city", bson!("b"), false)
    );
}

#[test]
fn missing_field_is_an_unset() {
    assert_eq!(
        changes(rawdoc! {"a": 1, "b": 2}, rawdoc! {"a": 1}),
        one(Op::Unset, "b", bson!(""), false)
    );
}

#[test]
fn null_to_document_sets_the_whole_document() {
    assert_eq!(
        changes(rawdoc! {"m": null}, rawdoc! {"m": {"x": 1}}),
        one(Op::Set, "m", bson!({"x": 1}), false)
    );
}

#[test]
fn append_is_a_push() {
    assert_eq!(
        changes(rawdoc! {"t": [1, 2]}, rawdoc! {"t": [1, 2, 3, 4]}),
        one(Op::Push, "t", bson!([3, 4]), false)
    );
    assert_eq!(
        changes(rawdoc! {"t": []}, rawdoc! {"t": ["a"]}),
        one(Op::Push, "t", bson!(["a"]), false)
    );
}

#[test]
fn clean_removal_of_primitives_is_a_pull_all() {
    assert_eq!(
        changes(rawdoc! {"t": [1, 4, 2, 6, 4]}, rawdoc! {"t": [1, 2]}),
        one(Op::PullAll, "t", bson!([4, 6]), false)
    );
    assert_eq!(
        changes(rawdoc! {"t": [1]}, rawdoc! {"t": []}),
        one(Op::PullAll, "t", bson!([1]), false)
    );
}

#[test]
fn partial_removal_of_duplicates_sets_the_array() {
    assert_eq!(
        changes(rawdoc! {"t": [1, 4, 4]}, rawdoc! {"t": [1, 4]}),
        one(Op::Set, "t", bson!([1, 4]), false)
    );
}

#[test]
fn removal_of_sub_documents_pulls_by_id() {
    let (a, b, c) = (ObjectId::new(), ObjectId::new(), ObjectId::new());
    assert_eq!(
        changes(
            rawdoc! {"c": [{"_id": a, "x": 1}, {"_id": b, "x": 2}, {"_id": c, "x": 3}]},
            rawdoc! {"c": [{"_id": a, "x": 1}, {"_id": c, "x": 3}]}
        ),
        one(Op::PullIds, "c", bson!([b]), false)
    );
}

#[test]
fn removal_of_sub_documents_without_id_sets_the_array() {
    assert_eq!(
        changes(
            rawdoc! {"c": [{"x": 1}, {"x": 2}]},
            rawdoc! {"c": [{"x": 2}]}
        ),
        one(Op::Set, "c", bson!([{"x": 2}]), false)
    );
}

#[test]
fn removal_with_an_id_still_kept_sets_the_array() {
    let a = ObjectId::new();
    assert_eq!(
        changes(
            rawdoc! {"c": [{"_id": a, "x": 1}, {"_id": a, "x": 2}]},
            rawdoc! {"c": [{"_id": a, "x": 2}]}
        ),
        one(Op::Set, "c", bson!([{"_id": a, "x": 2}]), false)
    );
}

#[test]
fn in_place_change_is_positional() {
    assert_eq!(
        changes(rawdoc! {"t": [1, 2, 3]}, rawdoc! {"t": [1, 5, 3]}),
        one(Op::Set, "t.1", bson!(5), true)
    );
    assert_eq!(
        changes(
            rawdoc! {"c": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]},
            rawdoc! {"c": [{"a": 1, "b": "x"}, {"a": 2, "b": "z"}]}
        ),
        one(Op::Set, "c.1.b", bson!("z"), true)
    );
}

#[test]
fn reorder_insert_in_middle_and_push_with_pull_set_the_array() {
    for (old, new) in [
        (rawdoc! {"t": [1, 2, 3]}, rawdoc! {"t": [3, 2, 1]}),
        (rawdoc! {"t": [1, 2, 3]}, rawdoc! {"t": [2, 1, 3]}),
        (rawdoc! {"t": [1, 2, 3]}, rawdoc! {"t": [1, 9, 2, 3]}),
        (rawdoc! {"t": [1, 2, 3]}, rawdoc! {"t": [2, 3, 4]}),
    ] {
        let expected = Bson::Array(
            new.get_array("t")
                .unwrap()
                .into_iter()
                .map(|v| Bson::try_from(v.unwrap()).unwrap())
                .collect(),
        );
        assert_eq!(changes(old, new), one(Op::Set, "t", expected, false));
    }
}

#[test]
fn two_in_place_edits_that_are_no_permutation_stay_positional() {
    assert_eq!(
        changes(rawdoc! {"t": [1, 2, 3]}, rawdoc! {"t": [7, 2, 8]}),
        vec![
            (Op::Set, "t.0".to_string(), bson!(7), true),
            (Op::Set, "t.2".to_string(), bson!(8), true)
        ]
    );
}

#[test]
fn push_inside_an_array_element_is_positional() {
    assert_eq!(
        changes(
            rawdoc! {"c": [{"r": [1]}, {"r": [2]}]},
            rawdoc! {"c": [{"r": [1]}, {"r": [2, 3]}]}
        ),
        one(Op::Push, "c.1.r", bson!([3]), true)
    );
}

#[test]
fn sets_come_in_field_order_then_unsets() {
    let got = changes(
        rawdoc! {"a": 1, "gone": true, "b": 2, "c": [1]},
        rawdoc! {"a": 2, "b": 3, "c": [1, 2]},
    );
    let paths: Vec<_> = got.iter().map(|c| (c.0, c.1.as_str())).collect();
    assert_eq!(
        paths,
        [
            (Op::Set, "a"),
            (Op::Set, "b"),
            (Op::Push, "c"),
            (Op::Unset, "gone")
        ]
    );
}

#[test]
fn nested_array_element_is_diffed_in_place() {
    assert_eq!(
        changes(rawdoc! {"m": [[1, 2], [3]]}, rawdoc! {"m": [[1, 9], [3]]}),
        one(Op::Set, "m.0.1", bson!(9), true)
    );
    assert_eq!(
        changes(
            rawdoc! {"m": [[1, 2], [3]]},
            rawdoc! {"m": [[1, 2], [3, 4]]}
        ),
        one(Op::Push, "m.1", bson!([4]), true)
    );
}

/// Whether the stored order of a sub-document will differ from `new`'s
/// once the per-key changes of the diff are applied.
fn reordered(old: RawDocumentBuf, new: RawDocumentBuf) -> bool {
    super::diff_out(&old, &new).unwrap().reordered
}

#[test]
fn a_sub_document_whose_keys_moved_is_reordered() {
    // Same keys, another order (a HashMap that rehashed), one value changed:
    // `$set m.a` keeps the stored order `{a, b}`.
    assert!(reordered(
        rawdoc! {"m": {"a": 1, "b": 2}},
        rawdoc! {"m": {"b": 2, "a": 3}}
    ));
    // No value changed at all: nothing is sent, the stored order stays.
    assert!(reordered(
        rawdoc! {"n": 1, "m": {"a": 1, "b": 2}},
        rawdoc! {"n": 2, "m": {"b": 2, "a": 1}}
    ));
    // A key added before a kept one: the server appends it.
    assert!(reordered(
        rawdoc! {"m": {"a": 1, "b": 2}},
        rawdoc! {"m": {"c": 3, "a": 1, "b": 2}}
    ));
    // Deeper, and inside an array element.
    assert!(reordered(
        rawdoc! {"l": [{"x": {"a": 1, "b": 2}}]},
        rawdoc! {"l": [{"x": {"b": 2, "a": 1, "c": 0}}]}
    ));
}

#[test]
fn order_kept_or_at_the_top_is_not_reordered() {
    assert!(!reordered(
        rawdoc! {"m": {"a": 1, "b": 2}},
        rawdoc! {"m": {"a": 1, "b": 3, "c": 4}}
    ));
    assert!(!reordered(
        rawdoc! {"m": {"a": 1, "b": 2, "c": 3}},
        rawdoc! {"m": {"a": 1, "c": 3}}
    ));
    // Top-level order: no write compares the whole document.
    assert!(!reordered(
        rawdoc! {"a": 1, "b": 2},
        rawdoc! {"b": 2, "a": 3}
    ));
    assert!(!reordered(rawdoc! {"a": 1}, rawdoc! {"a": 2}));
}

#[test]
fn keys_added_to_a_sub_document_go_in_the_servers_order() {
    // MongoDB (5.0 on) applies an update's fields by name, numeric names by
    // value, and appends the keys it adds in that order: sending them so
    // makes every server store the same order.
    let paths: Vec<String> = diff(
        &rawdoc! {"m": {"k": 1}, "n": 0},
        &rawdoc! {"n": 1, "m": {"z": 1, "k": 2, "10": 1, "a": 2, "9": 1}},
    )
    .unwrap()
    .into_iter()
    .map(|c| c.path)
    .collect();
    assert_eq!(paths, ["n", "m.9", "m.k", "m.10", "m.a", "m.z"]);
    assert_eq!(super::field_order("9", "10"), std::cmp::Ordering::Less);
    assert_eq!(super::field_order("10", "a"), std::cmp::Ordering::Less);
    assert_eq!(super::field_order("B", "a"), std::cmp::Ordering::Less);
}
