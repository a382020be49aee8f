//! Paths the stored document lacks: found, filled, settled.

use mongodb::bson::{bson, rawdoc};

use super::{diff, fill_missing, missing_paths, settle_missing, Change, Missing, Op};

fn set(paths: &[&str]) -> Missing {
    paths.iter().map(|p| p.to_string()).collect()
}

#[test]
fn missing_paths_are_found_at_every_depth() {
    let stored = rawdoc! {
        "_id": 1, "__v": 0, "extra": true,
        "a": {"x": 1},
        "c": [{"t": "a"}, {"t": "b", "likes": [1]}],
        "n": 5_i64,
    };
    let snapshot = rawdoc! {
        "_id": 1,
        "a": {"x": 1, "y": {"z": 1}},
        "p": {"name": ""},
        "c": [{"t": "a", "likes": []}, {"t": "b", "likes": [1]}],
        "n": 5,
        "tags": ["x"],
    };
    assert_eq!(
        missing_paths(&stored, &snapshot).unwrap(),
        set(&["a.y", "p", "c.0.likes", "tags"])
    );
    assert!(missing_paths(&snapshot, &snapshot).unwrap().is_empty());
    // Different shapes are reported as a whole.
    assert_eq!(
        missing_paths(&rawdoc! {"a": [1, 2]}, &rawdoc! {"a": [1]}).unwrap(),
        set(&["a"])
    );
    assert_eq!(
        missing_paths(&rawdoc! {"a": 1}, &rawdoc! {"a": {"b": 1}}).unwrap(),
        set(&["a"])
    );
}

#[test]
fn changes_under_a_missing_path_fill_it_whole() {
    let old = rawdoc! {"p": {"name": "", "age": 0}, "tags": ["d"], "c": [{"t": "a", "likes": []}], "s": 1};
    let new = rawdoc! {"p": {"name": "x", "age": 0}, "tags": ["d", "e"], "c": [{"t": "a", "likes": [7]}], "s": 2};
    let missing = set(&["p", "tags", "c.0.likes"]);
    let changes = fill_missing(diff(&old, &new).unwrap(), &missing, &new).unwrap();
    assert_eq!(
        changes,
        vec![
            Change::new(Op::Whole, "p".into(), bson!({"name": "x", "age": 0}), false),
            Change::new(Op::Whole, "tags".into(), bson!(["d", "e"]), false),
            // Pushed onto an empty array: the push creates exactly it.
            Change::new(Op::Push, "c.0.likes".into(), bson!([7]), true),
            Change::new(Op::Set, "s".into(), bson!(2), false),
        ]
    );
    // A plain set of exactly the missing path stays a set.
    let new = rawdoc! {"p": null, "tags": ["d"], "c": [{"t": "a", "likes": []}], "s": 1};
    let changes = fill_missing(diff(&old, &new).unwrap(), &missing, &new).unwrap();
    let mut nulled = Change::new(Op::Set, "p".into(), bson!(null), false);
    nulled.drops = true;
    assert_eq!(changes, vec![nulled]);
}

#[test]
fn a_saved_path_is_no_longer_missing() {
    let mut missing = set(&["p", "c.1.likes", "c.3.likes", "d.0.x", "tags", "e"]);
    settle_missing(
        &mut missing,
        &[
            Change::new(Op::Whole, "p".into(), bson!({}), false),
            Change::new(Op::PullIds, "c".into(), bson!([1]), false),
            Change::new(Op::Push, "d".into(), bson!([1]), false),
            Change::new(Op::Push, "e".into(), bson!([1]), false),
        ],
    );
    // Written: gone. Inside a pulled array: the array stands for them.
    // Inside an array that only grew: unchanged.
    assert_eq!(missing, set(&["c", "d.0.x", "tags"]));
    settle_missing(
        &mut missing,
        &[Change::new(Op::Set, "c".into(), bson!([]), false)],
    );
    assert_eq!(missing, set(&["d.0.x", "tags"]));
}
