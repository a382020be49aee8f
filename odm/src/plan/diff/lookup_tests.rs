//! The field lookups of `diff_document`: order of the changes, moved and
//! missing fields, and duplicate keys resolved as `RawDocument::get` does.

use mongodb::bson::{rawdoc, Bson};

use super::{diff, Change, Op};

fn set(path: &str, value: impl Into<Bson>) -> Change {
    Change {
        op: Op::Set,
        path: path.into(),
        value: value.into(),
        positional: false,
        counts: Vec::new(),
        drops: false,
    }
}

fn unset(path: &str) -> Change {
    Change {
        op: Op::Unset,
        path: path.into(),
        value: Bson::String(String::new()),
        positional: false,
        counts: Vec::new(),
        drops: false,
    }
}

#[test]
fn sets_follow_the_new_order_then_unsets_the_old_order() {
    let old = rawdoc! { "a": 1, "x": 1, "b": 2, "y": 1, "c": 3 };
    let new = rawdoc! { "c": 30, "b": 2, "a": 10, "d": 4 };
    let changes = diff(&old, &new).unwrap();
    assert_eq!(
        changes,
        vec![
            set("c", 30),
            set("a", 10),
            set("d", 4),
            unset("x"),
            unset("y")
        ]
    );
}

#[test]
fn nested_documents_are_diffed_by_key() {
    let old = rawdoc! { "n": { "p": 1, "q": "x", "r": true } };
    let new = rawdoc! { "n": { "q": "y", "p": 1 } };
    let changes = diff(&old, &new).unwrap();
    assert_eq!(changes, vec![set("n.q", "y"), unset("n.r")]);
}

#[test]
fn a_duplicate_key_resolves_to_its_first_occurrence() {
    // Old has `a` twice: the first one is compared, and neither is unset
    // while the new document has an `a`.
    let old = rawdoc! { "a": 1, "a": 2, "b": 1 };
    let new = rawdoc! { "a": 1, "b": 2 };
    assert_eq!(diff(&old, &new).unwrap(), vec![set("b", 2)]);

    // New has `a` twice: each is compared with the first old `a`.
    let old = rawdoc! { "a": 1 };
    let new = rawdoc! { "a": 1, "a": 3 };
    assert_eq!(diff(&old, &new).unwrap(), vec![set("a", 3)]);
}
