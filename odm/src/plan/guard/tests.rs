//! The guards a save's filter carries.

use mongodb::bson::{bson, doc, Bson, Document};

use super::guarded;
use crate::plan::diff::{Change, Op};
use crate::plan::versioning::{filter, Effect};

fn change(op: Op, path: &str, value: Bson, positional: bool) -> Change {
    Change::new(op, path.into(), value, positional)
}

fn filter_of(effect: Effect, changes: &[Change]) -> Document {
    filter(&doc! {"_id": 1}, Some("__v"), Some(3), effect, changes)
}

#[test]
fn a_pull_all_is_guarded_by_the_loaded_counts() {
    let mut pull = change(Op::PullAll, "tags", bson!(["a", "$b"]), false);
    pull.counts = vec![2, 1];
    let guard = |value: Bson, n: i32| {
        bson!({ "$eq": [{ "$size": { "$filter": {
            "input": { "$cond": [{ "$isArray": "$tags" }, "$tags", []] },
            "cond": { "$eq": ["$$this", { "$literal": value }] },
        } } }, n] })
    };
    let changes = [pull.clone()];
    assert_eq!(
        filter_of(Effect::INC, &changes),
        doc! { "_id": 1, "$expr": { "$and": [guard(bson!("a"), 2), guard(bson!("$b"), 1)] } }
    );
    assert!(guarded(&changes, false));
    // A positional pull is checked by its version instead.
    let mut pull = change(Op::PullAll, "c.1.tags", bson!(["a"]), true);
    pull.counts = vec![1];
    assert_eq!(filter_of(Effect::ALL, &[pull]), doc! { "_id": 1, "__v": 3 });
}

#[test]
fn every_parent_of_a_written_path_must_still_be_there() {
    let changes = [
        change(Op::Set, "title", bson!("x"), false),
        change(Op::Set, "opt.y", bson!(1), false),
        change(Op::Unset, "opt.z", bson!(""), false),
        change(Op::Push, "m.k.list", bson!([1]), false),
        change(Op::Set, "tags.0", bson!("a"), true),
    ];
    let object = || doc! { "$type": ["object", "array"] };
    assert_eq!(
        filter_of(Effect::INC, &changes),
        doc! { "_id": 1, "opt": object(), "m.k": object(), "tags": object() }
    );
    assert!(guarded(&changes, false));
    let top = [change(Op::Set, "title", bson!("x"), false)];
    assert_eq!(filter_of(Effect::NONE, &top), doc! { "_id": 1 });
    assert!(!guarded(&top, false));
    // A save that checks the version needs no parent guard: removing a
    // document or an array bumps it.
    assert_eq!(
        filter_of(Effect::WHERE, &changes),
        doc! { "_id": 1, "__v": 3 }
    );
    assert!(!guarded(&changes, true));
}

#[test]
fn removing_a_document_or_an_array_bumps_the_version() {
    use crate::plan::diff::diff;
    use crate::plan::versioning::effect;
    use crate::schema::meta::Versioning;
    use mongodb::bson::rawdoc;
    for (old, new, expected) in [
        (rawdoc! {"o": {"y": 1}}, rawdoc! {}, Effect::INC),
        (rawdoc! {"o": {"y": 1}}, rawdoc! {"o": null}, Effect::INC),
        (rawdoc! {"o": [1]}, rawdoc! {"o": 1}, Effect::INC),
        (
            rawdoc! {"c": [{"m": {"x": 1}}, 2]},
            rawdoc! {"c": [{"m": null}, 2]},
            Effect::ALL,
        ),
        (
            rawdoc! {"c": [[1], 2]},
            rawdoc! {"c": [null, 2]},
            Effect::ALL,
        ),
        (rawdoc! {"o": null}, rawdoc! {"o": {"y": 1}}, Effect::NONE),
        (rawdoc! {"o": 1}, rawdoc! {}, Effect::NONE),
    ] {
        let changes = diff(&old, &new).unwrap();
        assert_eq!(
            effect(&Versioning::DEFAULT, &changes, false),
            expected,
            "{old:?} -> {new:?}: {changes:?}"
        );
    }
}
