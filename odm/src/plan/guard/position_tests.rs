//! The positional guard, as pure functions.

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{bson, doc, oid::ObjectId, rawdoc, Bson, Document};

use super::{guards, terms};
use crate::plan::diff::{diff, Change, Op};
use crate::plan::guard::add_expr;
use crate::plan::versioning::{effect, filter};
use crate::schema::meta::Versioning;

/// The `$expr` terms of the save turning `old` into `new`.
fn terms_of(old: &RawDocumentBuf, new: &RawDocumentBuf) -> Vec<Bson> {
    let changes = diff(old, new).unwrap();
    terms(&guards(&changes, old, &[]).unwrap())
}

/// The filter of that save, as `request` builds it.
fn filter_of(old: &RawDocumentBuf, new: &RawDocumentBuf) -> Document {
    let changes = diff(old, new).unwrap();
    let effect = effect(&Versioning::DEFAULT, &changes, false);
    let mut f = filter(&doc! { "_id": 1 }, Some("__v"), Some(0), effect, &changes);
    add_expr(&mut f, terms(&guards(&changes, old, &[]).unwrap()));
    f
}

fn element(array: &str, i: i32) -> Bson {
    bson!({ "$arrayElemAt": [array, i] })
}

#[test]
fn an_element_edited_in_place_must_still_hold_what_was_loaded() {
    // The issue's first history: A pops 'b' and pushes 'a'; B, loaded
    // before, sets the last element to 'c'. Each is `$set tags.2`, and
    // each requires the 'b' it loaded there.
    let old = rawdoc! { "tags": ["d", "a", "b"], "n": 1 };
    for new in [
        rawdoc! { "tags": ["d", "a", "a"], "n": 1 },
        rawdoc! { "tags": ["d", "a", "c"], "n": 1 },
    ] {
        assert_eq!(
            filter_of(&old, &new),
            doc! {
                "_id": 1,
                "__v": 0,
                "$expr": { "$eq": [element("$tags", 2), "b"] },
            }
        );
    }
}

#[test]
fn different_elements_have_different_guards() {
    // Worked example 3: A edits element 0, B element 2; each guard names
    // only its own element, so both land.
    let old = rawdoc! { "tags": ["a", "b", "c"] };
    let a = rawdoc! { "tags": ["x", "b", "c"] };
    let b = rawdoc! { "tags": ["a", "b", "z"] };
    assert_eq!(
        terms_of(&old, &a),
        vec![bson!({ "$eq": [element("$tags", 0), "a"] })]
    );
    assert_eq!(
        terms_of(&old, &b),
        vec![bson!({ "$eq": [element("$tags", 2), "c"] })]
    );
    // Two elements edited by one save: one term each.
    let both = rawdoc! { "tags": ["x", "b", "z"] };
    assert_eq!(
        terms_of(&old, &both),
        vec![
            bson!({ "$eq": [element("$tags", 0), "a"] }),
            bson!({ "$eq": [element("$tags", 2), "c"] }),
        ]
    );
}

#[test]
fn a_sub_document_field_requires_the_same_sub_document_and_value() {
    let id = ObjectId::new();
    let old = rawdoc! { "c": [{ "_id": 1, "t": "a" }, { "_id": id, "t": "b", "v": 1 }] };
    let new = rawdoc! { "c": [{ "_id": 1, "t": "a" }, { "_id": id, "t": "x", "v": 2 }] };
    assert_eq!(
        terms_of(&old, &new),
        vec![bson!({ "$let": {
            "vars": { "e": element("$c", 1) },
            "in": { "$and": [
                { "$eq": ["$$e._id", id] },
                { "$eq": ["$$e.t", "b"] },
                { "$eq": ["$$e.v", 1] },
            ] },
        } })]
    );
    // Without an `_id`: the values alone.
    let old = rawdoc! { "c": [{ "t": "a", "p": { "q": 1 } }] };
    let new = rawdoc! { "c": [{ "t": "a", "p": { "q": 2 } }] };
    assert_eq!(
        terms_of(&old, &new),
        vec![bson!({ "$let": {
            "vars": { "e": element("$c", 0) },
            "in": { "$eq": ["$$e.p.q", 1] },
        } })]
    );
}

#[test]
fn null_and_absent_are_told_apart() {
    let old = rawdoc! { "c": [{ "t": null }], "s": [null, "k"] };
    let new = rawdoc! { "c": [{ "t": "x", "u": 1 }], "s": ["y", "k"] };
    assert_eq!(
        terms_of(&old, &new),
        vec![
            bson!({ "$let": {
                "vars": { "e": element("$c", 0) },
                "in": { "$and": [
                    { "$eq": [{ "$type": "$$e.t" }, "null"] },
                    { "$eq": [{ "$type": "$$e.u" }, "missing"] },
                ] },
            } }),
            bson!({ "$eq": [{ "$type": element("$s", 0) }, "null"] }),
        ]
    );
}

#[test]
fn values_an_expression_would_read_otherwise_are_literals() {
    let old = rawdoc! { "s": ["$x", "a"], "n": [f64::NAN, 1] };
    let new = rawdoc! { "s": ["y", "a"], "n": [2.5, 1] };
    let t = terms_of(&old, &new);
    assert_eq!(
        t[0],
        bson!({ "$eq": [element("$s", 0), { "$literal": "$x" }] })
    );
    // A NaN is sent as it is: the server's `$eq` finds a NaN equal to it.
    let nan = t[1].as_document().unwrap().get_array("$eq").unwrap()[1].clone();
    assert!(matches!(nan, Bson::Double(d) if d.is_nan()));
    // A sub-document `_id` that is a document keeps its stored field order.
    let old = rawdoc! { "c": [{ "_id": { "b": 1, "a": 2 }, "t": "a" }] };
    let new = rawdoc! { "c": [{ "_id": { "b": 1, "a": 2 }, "t": "z" }] };
    let t = terms_of(&old, &new);
    let and = &t[0].as_document().unwrap().get_document("$let").unwrap();
    let id = and.get_document("in").unwrap().get_array("$and").unwrap()[0].clone();
    assert_eq!(
        id,
        bson!({ "$eq": ["$$e._id", { "$literal": { "b": 1, "a": 2 } }] })
    );
    let keys: Vec<&String> = id.as_document().unwrap().get_array("$eq").unwrap()[1]
        .as_document()
        .unwrap()
        .get_document("$literal")
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["b", "a"]);
}

#[test]
fn elements_of_nested_arrays_are_read_by_position_at_each_level() {
    let old = rawdoc! { "g": [[1, 2], [3, 4]] };
    let new = rawdoc! { "g": [[1, 2], [9, 4]] };
    assert_eq!(
        terms_of(&old, &new),
        vec![bson!({ "$eq": [{ "$arrayElemAt": [element("$g", 1), 0] }, 3] })]
    );
    // An array under a field of an element, and an element with an `_id`
    // on the way: both sub-documents must be the ones loaded.
    let old = rawdoc! { "o": { "c": [
        { "_id": 7, "items": [{ "_id": 8, "x": "a" }, { "_id": 9, "x": "b" }] },
    ] } };
    let new = rawdoc! { "o": { "c": [
        { "_id": 7, "items": [{ "_id": 8, "x": "a" }, { "_id": 9, "x": "z" }] },
    ] } };
    let outer = element("$o.c", 0);
    let items = bson!({ "$let": { "vars": { "e": outer.clone() }, "in": "$$e.items" } });
    assert_eq!(
        terms_of(&old, &new),
        vec![
            bson!({ "$let": { "vars": { "e": outer }, "in": { "$eq": ["$$e._id", 7] } } }),
            bson!({ "$let": {
                "vars": { "e": { "$arrayElemAt": [items, 1] } },
                "in": { "$and": [{ "$eq": ["$$e._id", 9] }, { "$eq": ["$$e.x", "b"] }] },
            } }),
        ]
    );
}

#[test]
fn what_the_positional_guard_leaves_to_others() {
    // Top-level fields, appends and removals: no element edited in place.
    for (old, new) in [
        (
            rawdoc! { "n": 1, "p": { "q": 1 } },
            rawdoc! { "n": 2, "p": { "q": 2 } },
        ),
        (rawdoc! { "tags": ["a"] }, rawdoc! { "tags": ["a", "b"] }),
        (rawdoc! { "tags": ["a", "b"] }, rawdoc! { "tags": ["a"] }),
        (
            rawdoc! { "tags": ["a", "b"] },
            rawdoc! { "tags": ["b", "a"] },
        ),
    ] {
        assert_eq!(
            terms_of(&old, &new),
            Vec::<Bson>::new(),
            "{old:?} -> {new:?}"
        );
    }
    // An element that was a document or an array, replaced: the rewrite
    // guard compares it; only an `_id` on the way is required here.
    let old = rawdoc! { "c": [{ "_id": 1, "m": { "x": 1 }, "l": [1] }] };
    let new = rawdoc! { "c": [{ "_id": 1, "m": null, "l": [2, 1] }] };
    assert_eq!(
        terms_of(&old, &new),
        vec![
            bson!({ "$let": { "vars": { "e": element("$c", 0) }, "in": { "$eq": ["$$e._id", 1] } } })
        ]
    );
    let old = rawdoc! { "c": [{ "m": { "x": 1 } }] };
    let new = rawdoc! { "c": [{ "m": 5 }] };
    assert_eq!(terms_of(&old, &new), Vec::<Bson>::new());
    // A push into an element's array: its sub-document must be the same.
    let old = rawdoc! { "c": [{ "_id": 1, "r": ["a"] }] };
    let new = rawdoc! { "c": [{ "_id": 1, "r": ["a", "b"] }] };
    assert_eq!(
        terms_of(&old, &new),
        vec![
            bson!({ "$let": { "vars": { "e": element("$c", 0) }, "in": { "$eq": ["$$e._id", 1] } } })
        ]
    );
    // skip_versioning fields are left out.
    let changes = vec![Change::new(Op::Set, "tags.0".into(), bson!("x"), true)];
    let loaded = rawdoc! { "tags": ["a"] };
    assert_eq!(guards(&changes, &loaded, &["tags"]).unwrap(), vec![]);
    assert_eq!(guards(&changes, &loaded, &[]).unwrap().len(), 1);
}

#[test]
fn the_guard_compares_with_the_stored_bytes() {
    // The store holds an Int64 and a field the model does not know.
    let stored = rawdoc! { "c": [{ "n": 5_i64, "extra": true }] };
    let changes = vec![Change::new(Op::Set, "c.0.n".into(), bson!(6), true)];
    assert_eq!(
        terms(&guards(&changes, &stored, &[]).unwrap()),
        vec![
            bson!({ "$let": { "vars": { "e": element("$c", 0) }, "in": { "$eq": ["$$e.n", 5_i64] } } })
        ]
    );
}

#[test]
fn the_terms_join_the_removal_guards_in_one_expr() {
    let mut f = doc! { "_id": 1, "$expr": { "$eq": [1, 1] } };
    add_expr(&mut f, vec![bson!({ "$eq": [2, 2] })]);
    assert_eq!(
        f,
        doc! { "_id": 1, "$expr": { "$and": [{ "$eq": [1, 1] }, { "$eq": [2, 2] }] } }
    );
    add_expr(&mut f, vec![bson!({ "$eq": [3, 3] })]);
    assert_eq!(
        f,
        doc! { "_id": 1, "$expr": { "$and": [{ "$eq": [1, 1] }, { "$eq": [2, 2] }, { "$eq": [3, 3] }] } }
    );
    let mut f = doc! { "_id": 1 };
    add_expr(&mut f, vec![]);
    assert_eq!(f, doc! { "_id": 1 });
}
