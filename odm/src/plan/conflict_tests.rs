use mongodb::bson::rawdoc;

use super::*;

fn paths(loaded: &RawDocumentBuf, stored: &RawDocumentBuf) -> Vec<String> {
    changed_paths(loaded, stored)
}

#[test]
fn the_store_s_changes_are_named_at_the_save_rules_depth() {
    let loaded = rawdoc! {
        "_id": 1, "status": "NEW", "meta": { "city": "Oslo", "zip": "0150" },
        "tags": ["a", "b"], "comments": [{ "_id": 1, "text": "hi" }, { "_id": 2, "text": "yo" }],
    };
    // Nothing changed.
    assert!(paths(&loaded, &loaded).is_empty());
    // A nested field, an element in place, a push, a field added and one
    // removed.
    let stored = rawdoc! {
        "_id": 1, "meta": { "city": "Bergen", "zip": "0150" },
        "tags": ["a", "b", "c"], "comments": [{ "_id": 1, "text": "hi" }, { "_id": 2, "text": "edited" }],
        "avatar": "x.png",
    };
    assert_eq!(
        paths(&loaded, &stored),
        ["meta.city", "tags", "comments.1.text", "avatar", "status"]
    );
    // An array rewritten (no element kept its place) is the whole array;
    // one element changed in place is that element.
    let rewritten = rawdoc! {
        "_id": 1, "status": "NEW", "meta": { "city": "Oslo", "zip": "0150" },
        "tags": ["x", "y"], "comments": [{ "_id": 1, "text": "hi" }, { "_id": 2, "text": "yo" }],
    };
    assert_eq!(paths(&loaded, &rewritten), ["tags"]);
    let in_place = rawdoc! {
        "_id": 1, "status": "NEW", "meta": { "city": "Oslo", "zip": "0150" },
        "tags": ["a", "z"], "comments": [{ "_id": 1, "text": "hi" }, { "_id": 2, "text": "yo" }],
    };
    assert_eq!(paths(&loaded, &in_place), ["tags.1"]);
}

#[test]
fn a_top_level_key_that_is_no_path_is_named_by_its_field() {
    let loaded = rawdoc! { "_id": 1, "a.b": 1, "c": 1 };
    let stored = rawdoc! { "_id": 1, "a.b": 2, "c": 1, "d": 0 };
    assert_eq!(paths(&loaded, &stored), ["a.b", "d"]);
}

#[test]
fn paths_overlap_when_equal_or_one_under_the_other() {
    assert!(overlaps("meta", "meta"));
    assert!(overlaps("meta", "meta.city"));
    assert!(overlaps("comments.1.text", "comments"));
    assert!(!overlaps("meta", "metadata"));
    assert!(!overlaps("meta.city", "meta.zip"));
    assert!(!overlaps("tags.1", "tags.10"));
    let theirs = ["meta.city".to_string(), "status".into(), "tags".into()];
    let mine = ["meta".to_string(), "tags.0".into(), "avatar".into()];
    assert_eq!(overlap(&theirs, &mine), ["meta.city", "tags"]);
    assert!(overlap(&theirs, &["avatar".to_string()]).is_empty());
}

#[test]
fn the_merge_writes_this_copy_s_paths_into_the_stored_document() {
    // Loaded: status NEW, tags [a], meta {city Oslo}, note "n".
    // The store since: status ACTIVE, meta.zip added.
    let stored = rawdoc! {
        "_id": 1, "status": "ACTIVE", "tags": ["a"], "meta": { "city": "Oslo", "zip": "1" }, "note": "n",
        "comments": [{ "_id": 1, "text": "hi" }],
    };
    // This copy: pushed b, moved to Bergen, removed the note, edited a comment.
    let mine = rawdoc! {
        "_id": 1, "status": "NEW", "tags": ["a", "b"], "meta": { "city": "Bergen" },
        "comments": [{ "_id": 1, "text": "hello" }],
    };
    let merged = merge(
        &stored,
        &mine,
        &[
            "tags".into(),
            "meta.city".into(),
            "note".into(),
            "comments.0.text".into(),
        ],
    )
    .unwrap();
    assert_eq!(
        merged,
        rawdoc! {
            "_id": 1, "status": "ACTIVE", "tags": ["a", "b"], "meta": { "city": "Bergen", "zip": "1" },
            "comments": [{ "_id": 1, "text": "hello" }],
        }
    );
}

#[test]
fn a_path_whose_parent_is_gone_cannot_be_merged() {
    let stored = rawdoc! { "_id": 1, "comments": [] };
    let mine = rawdoc! { "_id": 1, "meta": { "city": "x" }, "comments": [{ "text": "a" }] };
    assert_eq!(
        merge(&stored, &mine, &["meta.city".into()]),
        Err(Unmergeable("meta.city".into()))
    );
    assert_eq!(
        merge(&stored, &mine, &["comments.0.text".into()]),
        Err(Unmergeable("comments.0.text".into()))
    );
}
