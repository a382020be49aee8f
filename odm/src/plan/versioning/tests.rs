use mongodb::bson::{bson, doc, Bson};

use super::{effect, filter, modified_paths, update, Effect};
use crate::plan::diff::{Change, Op};
use crate::schema::meta::{Concurrency, Versioning};

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

const DEFAULT: Versioning = Versioning::DEFAULT;

fn with(concurrency: Concurrency) -> Versioning {
    Versioning {
        concurrency,
        ..DEFAULT
    }
}

#[test]
fn default_mode_effects() {
    let cases = [
        (change(Op::Set, "name", bson!("x"), false), Effect::NONE),
        (change(Op::Unset, "name", bson!(""), false), Effect::NONE),
        (
            change(Op::Set, "meta.city", bson!("x"), false),
            Effect::NONE,
        ),
        (change(Op::Push, "tags", bson!(["x"]), false), Effect::INC),
        (
            change(Op::PullAll, "tags", bson!(["x"]), false),
            Effect::INC,
        ),
        (change(Op::PullIds, "c", bson!([1]), false), Effect::INC),
        (change(Op::Set, "tags.2", bson!("x"), true), Effect::WHERE),
        (change(Op::Set, "c.1.text", bson!("x"), true), Effect::WHERE),
        (
            change(Op::Unset, "c.1.text", bson!(""), true),
            Effect::WHERE,
        ),
        (change(Op::Set, "tags", bson!(["x"]), false), Effect::ALL),
        (change(Op::Push, "c.3.r", bson!([1]), true), Effect::ALL),
        (change(Op::PullAll, "c.3.r", bson!([1]), true), Effect::ALL),
        (change(Op::Set, "c.3.r", bson!([1]), true), Effect::ALL),
    ];
    for (c, expected) in cases {
        assert_eq!(
            effect(&DEFAULT, std::slice::from_ref(&c), false),
            expected,
            "{c:?}"
        );
    }
}

#[test]
fn effects_accumulate() {
    let changes = [
        change(Op::Push, "tags", bson!(["x"]), false),
        change(Op::Set, "c.1.text", bson!("x"), true),
    ];
    assert_eq!(effect(&DEFAULT, &changes, false), Effect::ALL);
}

#[test]
fn skip_versioning_fields_have_no_effect() {
    let rules = Versioning {
        skip: &["tags"],
        ..DEFAULT
    };
    let push = change(Op::Push, "tags", bson!(["x"]), false);
    assert_eq!(
        effect(&rules, std::slice::from_ref(&push), false),
        Effect::NONE
    );
    let other = change(Op::Push, "other", bson!(["x"]), false);
    assert_eq!(effect(&rules, &[push, other], false), Effect::INC);
}

#[test]
fn versioning_off_has_no_effect_even_with_increment() {
    let rules = Versioning {
        key: None,
        ..DEFAULT
    };
    let push = change(Op::Push, "tags", bson!(["x"]), false);
    assert_eq!(effect(&rules, &[push], true), Effect::NONE);
}

#[test]
fn increment_forces_all() {
    assert_eq!(effect(&DEFAULT, &[], true), Effect::ALL);
}

#[test]
fn optimistic_concurrency_whole() {
    let rules = with(Concurrency::All);
    let scalar = change(Op::Set, "name", bson!("x"), false);
    assert_eq!(effect(&rules, &[scalar], false), Effect::ALL);
    assert_eq!(effect(&rules, &[], false), Effect::WHERE);
}

#[test]
fn optimistic_concurrency_include() {
    let rules = with(Concurrency::Include(&["status"]));
    let status = change(Op::Set, "status", bson!("x"), false);
    let nested = change(Op::Set, "status.code", bson!(1), false);
    let other = change(Op::Set, "name", bson!("x"), false);
    let push = change(Op::Push, "tags", bson!(["x"]), false);
    assert_eq!(effect(&rules, &[status], false), Effect::ALL);
    assert_eq!(effect(&rules, &[nested], false), Effect::ALL);
    assert_eq!(effect(&rules, &[other], false), Effect::NONE);
    // No array versioning either, as in Mongoose.
    assert_eq!(effect(&rules, &[push], false), Effect::NONE);
    assert_eq!(effect(&rules, &[], false), Effect::NONE);
}

#[test]
fn optimistic_concurrency_exclude() {
    let rules = with(Concurrency::Exclude(&["views"]));
    let views = change(Op::Set, "views", bson!(3), false);
    let other = change(Op::Set, "name", bson!("x"), false);
    assert_eq!(
        effect(&rules, std::slice::from_ref(&views), false),
        Effect::NONE
    );
    assert_eq!(effect(&rules, &[views, other], false), Effect::ALL);
    assert_eq!(effect(&rules, &[], false), Effect::NONE);
}

#[test]
fn optimistic_concurrency_include_nested_paths() {
    let rules = with(Concurrency::Include(&[
        "profile.first_name",
        "comments.text",
    ]));
    let checked = [
        change(Op::Set, "profile.first_name", bson!("x"), false),
        // Above the listed path: rewrites it.
        change(Op::Set, "profile", bson!({"first_name": "x"}), false),
        change(Op::Set, "comments.2.text", bson!("x"), true),
        change(Op::Push, "comments", bson!([{"text": "x"}]), false),
    ];
    for c in checked {
        assert_eq!(
            effect(&rules, std::slice::from_ref(&c), false),
            Effect::ALL,
            "{c:?}"
        );
    }
    let unchecked = [
        change(Op::Set, "profile.last_name", bson!("x"), false),
        change(Op::Set, "comments.2.author", bson!("x"), true),
        change(Op::Set, "status", bson!("x"), false),
    ];
    for c in unchecked {
        assert_eq!(
            effect(&rules, std::slice::from_ref(&c), false),
            Effect::NONE,
            "{c:?}"
        );
    }
}

#[test]
fn optimistic_concurrency_exclude_nested_paths() {
    let rules = with(Concurrency::Exclude(&["profile.visits", "prefs.$*.seen"]));
    let unchecked = [
        change(Op::Set, "profile.visits", bson!(3), false),
        change(Op::Set, "prefs.dark.seen", bson!(true), false),
    ];
    assert_eq!(effect(&rules, &unchecked, false), Effect::NONE);
    let checked = [
        change(Op::Set, "profile.name", bson!("x"), false),
        // Above an excluded path: rewrites what is not excluded too.
        change(Op::Set, "profile", bson!({"visits": 3}), false),
        change(Op::Set, "prefs.dark.on", bson!(true), false),
    ];
    for c in checked {
        let changes = [unchecked[0].clone(), c.clone()];
        assert_eq!(effect(&rules, &changes, false), Effect::ALL, "{c:?}");
    }
}

#[test]
fn filter_and_update_documents() {
    let changes = [
        change(Op::Set, "a", bson!(1), false),
        change(Op::Unset, "b", bson!(""), false),
        change(Op::Push, "t", bson!([1]), false),
        change(Op::PullAll, "u", bson!([2]), false),
        change(Op::PullIds, "c", bson!([3]), false),
    ];
    assert_eq!(
        update(&changes, Some("__v"), Effect::ALL),
        doc! {
            "$set": {"a": 1},
            "$unset": {"b": ""},
            "$push": {"t": {"$each": [1]}},
            "$pullAll": {"u": [2]},
            "$pull": {"c": {"_id": {"$in": [3]}}},
            "$inc": {"__v": 1},
        }
    );
    assert_eq!(
        filter(&doc! {"_id": 7}, Some("__v"), Some(2), Effect::ALL, &[]),
        doc! {"_id": 7, "__v": 2}
    );
    assert_eq!(
        filter(&doc! {"_id": 7}, Some("__v"), Some(2), Effect::INC, &[]),
        doc! {"_id": 7}
    );
    assert_eq!(
        filter(&doc! {"_id": 7}, Some("__v"), None, Effect::ALL, &[]),
        doc! {"_id": 7}
    );
    assert_eq!(update(&[], Some("__v"), Effect::WHERE), doc! {});
}

#[test]
fn modified_paths_are_unique_and_ordered() {
    let changes = [
        change(Op::Set, "b", bson!(1), false),
        change(Op::Push, "a", bson!([1]), false),
        change(Op::Set, "b", bson!(1), false),
    ];
    assert_eq!(modified_paths(&changes), ["b", "a"]);
}
