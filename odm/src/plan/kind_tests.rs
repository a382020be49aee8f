use mongodb::bson::{doc, rawdoc, Bson};

use super::*;
use crate::plan::diff::{diff, Missing};
use crate::schema::meta::Concurrency;

const KINDS: Kinds = Kinds {
    key: "kind",
    names: &["Click", "Purchase"],
};

fn snapshot(raw: mongodb::bson::raw::RawDocumentBuf) -> Tracked {
    Tracked::Snapshot {
        id: Bson::Int32(1),
        snapshot: raw,
        offsets: crate::codec::offsets::Offsets::new(),
        missing: Missing::new(),
        base: None,
    }
}

#[test]
fn the_term_holds_the_loaded_kind_and_tells_a_change() {
    let old = rawdoc! { "kind": "Click", "_id": 1, "element": "#buy" };
    let new = rawdoc! { "kind": "Purchase", "_id": 1, "amount": 5 };
    let changes = diff(&old, &new).unwrap();
    let term = term(Some(KINDS), &snapshot(old.clone()), &changes)
        .unwrap()
        .expect("an enum model has a kind term");
    assert_eq!(term.key, "kind");
    assert_eq!(term.loaded, "Click");
    assert!(term.changed);

    let same = rawdoc! { "kind": "Click", "_id": 1, "element": "#cart" };
    let changes = diff(&old, &same).unwrap();
    let term = super::term(Some(KINDS), &snapshot(old.clone()), &changes)
        .unwrap()
        .unwrap();
    assert!(!term.changed);

    // A struct has none, nor does a new document (an insert has no filter).
    assert_eq!(super::term(None, &snapshot(old), &changes).unwrap(), None);
    assert_eq!(
        super::term(Some(KINDS), &Tracked::New, &changes).unwrap(),
        None
    );
}

#[test]
fn a_clean_copy_reads_the_kind_where_the_store_put_it() {
    let stored = rawdoc! { "_id": 1, "__v": 3, "element": "#buy", "kind": "Click" };
    let clean = Tracked::Clean {
        id: Bson::Int32(1),
        stored,
    };
    assert_eq!(loaded(KINDS, &clean).unwrap(), Some("Click"));
    // A stored kind the model does not name cannot have loaded.
    let odd = Tracked::Clean {
        id: Bson::Int32(1),
        stored: rawdoc! { "_id": 1, "kind": "Other" },
    };
    assert!(loaded(KINDS, &odd).is_err());
}

#[test]
fn a_change_of_kind_is_a_rewrite_in_every_mode() {
    let term = KindTerm {
        key: "kind",
        loaded: "Click",
        changed: true,
    };
    for concurrency in [
        Concurrency::Off,
        Concurrency::All,
        Concurrency::Include(&["element"]),
        Concurrency::Exclude(&["element"]),
    ] {
        let rules = Versioning {
            key: Some("__v"),
            concurrency,
            skip: &[],
        };
        assert_eq!(effect(Some(&term), &rules, Effect::NONE), Effect::ALL);
    }
    // Without a version key there is nothing to check or bump: the kind
    // in the filter still guards the write.
    let unversioned = Versioning {
        key: None,
        ..Versioning::DEFAULT
    };
    assert_eq!(
        effect(Some(&term), &unversioned, Effect::NONE),
        Effect::NONE
    );
    let same = KindTerm {
        changed: false,
        ..term
    };
    assert_eq!(
        effect(Some(&same), &Versioning::DEFAULT, Effect::INC),
        Effect::INC
    );
}

#[test]
fn a_change_of_kind_writes_the_defaulted_fields_the_store_lacks() {
    // Loaded as Click with `tags` filled in by serde's default (the store
    // lacked it); the new kind has `tags` too, equal to that default: the
    // diff sees no change, yet the store must hold it.
    let old = rawdoc! { "kind": "Click", "_id": 1, "element": "#buy", "tags": ["a"] };
    let new = rawdoc! { "kind": "Purchase", "_id": 1, "amount": 5, "tags": ["a"] };
    let mut changes = diff(&old, &new).unwrap();
    let term = term(Some(KINDS), &snapshot(old), &changes).unwrap();
    let missing: Missing = ["tags".to_string(), "element".to_string()].into();
    fill_new_kind(term.as_ref(), &mut changes, &missing, &new).unwrap();
    let tags = changes
        .iter()
        .find(|c| c.path == "tags")
        .expect("tags written");
    assert_eq!(tags.op, Op::Whole);
    assert_eq!(tags.value, Bson::Array(vec![Bson::String("a".into())]));
    // `element` is the old kind's: unset by the diff, not filled.
    let element: Vec<_> = changes.iter().filter(|c| c.path == "element").collect();
    assert_eq!(element.len(), 1);
    assert_eq!(element[0].op, Op::Unset);
}

#[test]
fn without_a_change_of_kind_nothing_is_filled() {
    let old = rawdoc! { "kind": "Click", "_id": 1, "element": "#buy", "tags": ["a"] };
    let new = rawdoc! { "kind": "Click", "_id": 1, "element": "#cart", "tags": ["a"] };
    let mut changes = diff(&old, &new).unwrap();
    let term = term(Some(KINDS), &snapshot(old), &changes).unwrap();
    let missing: Missing = ["tags".to_string()].into();
    fill_new_kind(term.as_ref(), &mut changes, &missing, &new).unwrap();
    assert!(changes.iter().all(|c| c.path != "tags"), "{changes:?}");
}

#[test]
fn a_kind_handle_scopes_every_filter() {
    assert_eq!(scoped(doc! {}, "kind", "Click"), doc! { "kind": "Click" });
    assert_eq!(
        scoped(doc! { "element": "#buy" }, "kind", "Click"),
        doc! { "element": "#buy", "kind": "Click" }
    );
    // The caller's own term on the key still applies: another kind's
    // name then matches nothing.
    assert_eq!(
        scoped(doc! { "kind": "Purchase" }, "kind", "Click"),
        doc! { "$and": [{ "kind": "Purchase" }, { "kind": "Click" }] }
    );
    assert_eq!(
        scoped(
            doc! { "$or": [{ "a": 1 }, { "kind": "Purchase" }] },
            "kind",
            "Click"
        ),
        doc! { "$or": [{ "a": 1 }, { "kind": "Purchase" }], "kind": "Click" }
    );
}

#[test]
fn set_based_writes_of_the_kind_are_refused() {
    for update in [
        doc! { "$set": { "kind": "Purchase" } },
        doc! { "$unset": { "kind": "" } },
        doc! { "$set": { "kind.x": 1 } },
        doc! { "$rename": { "other": "kind" } },
        doc! { "$rename": { "kind": "other" } },
    ] {
        let e = check_update(Some(KINDS), &update, "Event").unwrap_err();
        let Error::Validation(errors) = &e else {
            panic!("{e:?}")
        };
        assert!(
            e.to_string().contains("the kind of `Event`"),
            "{update}: {e}"
        );
        assert_eq!(errors.errors().len(), 1);
    }
    check_update(
        Some(KINDS),
        &doc! { "$set": { "kinds": 1, "amount": 2 } },
        "Event",
    )
    .unwrap();
    check_update(None, &doc! { "$set": { "kind": 1 } }, "User").unwrap();
    check_paths(Some(KINDS), ["element"], "Event").unwrap();
    assert!(check_paths(Some(KINDS), ["kind"], "Event").is_err());
}

#[test]
fn a_new_id_on_a_stored_document_is_refused() {
    let old = rawdoc! { "kind": "Click", "_id": 1, "element": "#buy" };
    let new = rawdoc! { "kind": "Purchase", "_id": 2, "cents": 5 };
    let e = check_id(&diff(&old, &new).unwrap()).unwrap_err();
    assert!(
        matches!(&e, Error::Validation(v) if v.paths() == ["_id"]),
        "{e:?}"
    );
    let same = rawdoc! { "kind": "Purchase", "_id": 1, "cents": 5 };
    check_id(&diff(&old, &same).unwrap()).unwrap();
}
