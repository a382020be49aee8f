//! The rewrite guard, as pure functions.

use mongodb::bson::{bson, doc, rawdoc, Bson};

use super::{add, adds_keys, advance, guards};
use crate::plan::diff::{diff, Change, Op};

fn guards_of(
    old: &mongodb::bson::RawDocumentBuf,
    new: &mongodb::bson::RawDocumentBuf,
) -> Vec<(String, Option<Bson>)> {
    let changes = diff(old, new).unwrap();
    guards(&changes, old, &[]).unwrap()
}

#[test]
fn a_whole_array_set_requires_the_array_it_loaded() {
    // The repro: B sorts [c, b, b, c, d].
    let old = rawdoc! { "tags": ["c", "b", "b", "c", "d"], "n": 1 };
    let new = rawdoc! { "tags": ["b", "b", "c", "c", "d"], "n": 1 };
    assert_eq!(
        guards_of(&old, &new),
        vec![("tags".to_string(), Some(bson!(["c", "b", "b", "c", "d"])))]
    );
    let mut filter = doc! { "_id": 1, "__v": 0 };
    add(&mut filter, &guards_of(&old, &new));
    assert_eq!(
        filter,
        doc! { "_id": 1, "__v": 0, "tags": { "$eq": ["c", "b", "b", "c", "d"] } }
    );
}

#[test]
fn edits_in_place_pushes_and_pulls_are_not_rewrites() {
    for (old, new) in [
        (
            rawdoc! { "tags": ["a", "b"] },
            rawdoc! { "tags": ["a", "x"] },
        ),
        (rawdoc! { "tags": ["a"] }, rawdoc! { "tags": ["a", "b"] }),
        (rawdoc! { "tags": ["a", "b"] }, rawdoc! { "tags": ["a"] }),
        (
            rawdoc! { "p": { "x": 1, "y": 2 } },
            rawdoc! { "p": { "x": 1, "y": 3 } },
        ),
        (rawdoc! { "n": 1 }, rawdoc! { "n": 2 }),
        // Replacing null or a scalar replaces nothing edited in place.
        (rawdoc! { "p": null }, rawdoc! { "p": { "x": 1 } }),
        (rawdoc! { "p": 1 }, rawdoc! { "p": [1] }),
    ] {
        assert_eq!(guards_of(&old, &new), vec![], "{old:?} -> {new:?}");
    }
}

#[test]
fn removing_or_replacing_a_document_requires_the_one_loaded() {
    let p = bson!({ "x": 1, "y": [1, 2] });
    for new in [
        rawdoc! {},
        rawdoc! { "p": null },
        rawdoc! { "p": 5 },
        rawdoc! { "p": { "a.b": 1 } },
    ] {
        let old = rawdoc! { "p": { "x": 1, "y": [1, 2] } };
        assert_eq!(
            guards_of(&old, &new),
            vec![("p".to_string(), Some(p.clone()))],
            "-> {new:?}"
        );
    }
    // An element that is a sub-document, set to null, positionally.
    let old = rawdoc! { "c": [{ "_id": 1, "t": "a" }, { "_id": 2, "t": "b" }] };
    let new = rawdoc! { "c": [{ "_id": 1, "t": "a" }, null] };
    assert_eq!(
        guards_of(&old, &new),
        vec![("c.1".to_string(), Some(bson!({ "_id": 2, "t": "b" })))]
    );
}

#[test]
fn a_map_saved_whole_requires_the_map_loaded() {
    let old = rawdoc! { "m": { "k": 1 } };
    let new = rawdoc! { "m": { "k": 1, "a.b": 2 } };
    assert_eq!(
        guards_of(&old, &new),
        vec![("m".to_string(), Some(bson!({ "k": 1 })))]
    );
}

#[test]
fn the_guard_compares_with_the_stored_bytes_not_the_model() {
    // The store has a field the model does not know: the guard names it.
    let stored = rawdoc! { "tags": [{ "_id": 1, "t": "a", "extra": true }] };
    let changes = vec![Change::new(Op::Set, "tags".into(), bson!([]), false)];
    assert_eq!(
        guards(&changes, &stored, &[]).unwrap(),
        vec![(
            "tags".to_string(),
            Some(bson!([{ "_id": 1, "t": "a", "extra": true }]))
        )]
    );
    // skip_versioning fields are left out.
    assert_eq!(guards(&changes, &stored, &["tags"]).unwrap(), vec![]);
}

#[test]
fn a_field_set_whole_because_it_was_missing_requires_it_still_absent() {
    let stored = rawdoc! { "n": 1 };
    let changes = vec![Change::new(Op::Whole, "p".into(), bson!({ "x": 1 }), false)];
    let guards = guards(&changes, &stored, &[]).unwrap();
    assert_eq!(guards, vec![("p".to_string(), None)]);
    let mut filter = doc! { "_id": 1, "__v": 0 };
    add(&mut filter, &guards);
    assert_eq!(
        filter,
        doc! { "_id": 1, "__v": 0, "p": { "$exists": false } }
    );
}

#[test]
fn a_second_guard_on_one_path_goes_into_and() {
    let mut filter = doc! { "_id": 1, "p": { "$type": ["object", "array"] } };
    add(&mut filter, &[("p".to_string(), Some(bson!({ "x": 1 })))]);
    assert_eq!(
        filter,
        doc! {
            "_id": 1,
            "p": { "$type": ["object", "array"] },
            "$and": [{ "p": { "$eq": { "x": 1 } } }],
        }
    );
}

#[test]
fn the_base_follows_the_saves() {
    // Loaded with a field the model drops; the model edits in place.
    let base = rawdoc! { "c": [{ "t": "a", "x": 1 }, { "t": "b", "x": 2 }], "n": 1 };
    let current = rawdoc! { "c": [{ "t": "z" }, { "t": "b" }], "n": 2 };
    let changes = vec![
        Change::new(Op::Set, "c.0.t".into(), bson!("z"), true),
        Change::new(Op::Set, "n".into(), bson!(2), false),
    ];
    assert_eq!(
        advance(&base, &changes, &current).unwrap(),
        rawdoc! { "c": [{ "t": "z", "x": 1 }, { "t": "b", "x": 2 }], "n": 2 }
    );
    // An append adds to what was stored.
    let current = rawdoc! { "c": [{ "t": "a" }, { "t": "b" }, { "t": "c" }], "n": 1 };
    let changes = vec![Change::new(
        Op::Push,
        "c".into(),
        bson!([{ "t": "c" }]),
        false,
    )];
    assert_eq!(
        advance(&base, &changes, &current).unwrap(),
        rawdoc! { "c": [{ "t": "a", "x": 1 }, { "t": "b", "x": 2 }, { "t": "c" }], "n": 1 }
    );
    // Once the store is what the model writes, no base is kept.
    let current = rawdoc! { "c": [], "n": 1 };
    let changes = vec![Change::new(Op::Set, "c".into(), bson!([]), false)];
    assert_eq!(advance(&base, &changes, &current), None);
    // An unset element of an array is null on the server.
    let current = rawdoc! { "c": [null, { "t": "b" }], "n": 1 };
    let changes = vec![Change::new(Op::Unset, "c.0".into(), bson!(""), true)];
    assert_eq!(
        advance(&base, &changes, &current).unwrap(),
        rawdoc! { "c": [null, { "t": "b", "x": 2 }], "n": 1 }
    );
}

#[test]
fn a_key_added_under_a_document_is_appended_by_the_server() {
    let loaded = rawdoc! { "p": { "x": 1, "z": 3 } };
    let added = vec![Change::new(Op::Set, "p.y".into(), bson!(2), false)];
    assert!(adds_keys(&loaded, &added));
    // The value puts `y` between `x` and `z`; the server appends it.
    let current = rawdoc! { "p": { "x": 1, "y": 2, "z": 3 } };
    assert_eq!(
        advance(&loaded, &added, &current).unwrap(),
        rawdoc! { "p": { "x": 1, "z": 3, "y": 2 } }
    );
    let replaced = vec![Change::new(Op::Set, "p.x".into(), bson!(5), false)];
    assert!(!adds_keys(&loaded, &replaced));
    let top = vec![Change::new(Op::Set, "q".into(), bson!(5), false)];
    assert!(!adds_keys(&loaded, &top));
}
