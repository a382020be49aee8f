//! The update document: one body per operator, in a fixed order, only for
//! the operators used, then the version bump.

use mongodb::bson::{bson, doc, Bson};

use super::{update, Effect};
use crate::plan::diff::{Change, Op};

fn change(op: Op, path: &str, value: Bson) -> Change {
    Change {
        op,
        path: path.into(),
        value,
        positional: false,
        counts: Vec::new(),
        drops: false,
    }
}

#[test]
fn operators_come_in_a_fixed_order_with_their_entries_in_change_order() {
    let changes = [
        change(Op::PullIds, "c", bson!([1])),
        change(Op::Set, "b", bson!(2)),
        change(Op::Push, "t", bson!(["x"])),
        change(Op::Unset, "u", bson!("")),
        change(Op::Set, "a", bson!(1)),
        change(Op::PullAll, "p", bson!(["y"])),
    ];
    assert_eq!(
        update(&changes, Some("__v"), Effect::ALL),
        doc! {
            "$set": { "b": 2, "a": 1 },
            "$unset": { "u": "" },
            "$push": { "t": { "$each": ["x"] } },
            "$pullAll": { "p": ["y"] },
            "$pull": { "c": { "_id": { "$in": [1] } } },
            "$inc": { "__v": 1 },
        }
    );
}

#[test]
fn unused_operators_are_left_out() {
    let changes = [change(Op::Set, "counter", bson!(5))];
    assert_eq!(
        update(&changes, Some("__v"), Effect::WHERE),
        doc! { "$set": { "counter": 5 } }
    );
    assert_eq!(update(&[], Some("__v"), Effect::NONE), doc! {});
    assert_eq!(
        update(&[], Some("v"), Effect::INC),
        doc! { "$inc": { "v": 1 } }
    );
}
