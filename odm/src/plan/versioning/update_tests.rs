//! The update document: one body per operator, in a fixed order, only for
//! the operators used, then the version bump.

use mongodb::bson::{bson, doc, Bson};

use super::{update, update_moving, Effect};
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

#[test]
fn a_moving_update_is_the_same_and_keeps_only_the_values_read_after_the_send() {
    let changes = || {
        vec![
            change(Op::PullIds, "c", bson!([1])),
            change(Op::Set, "b", bson!({ "x": [2] })),
            change(Op::Push, "t", bson!(["x"])),
            change(Op::Unset, "u", bson!("")),
            change(Op::Whole, "w", bson!([3])),
            change(Op::PullAll, "p", bson!(["y"])),
        ]
    };
    let copied = update(&changes(), Some("__v"), Effect::ALL);
    for pushes_read in [false, true] {
        let mut moved = changes();
        let sent = update_moving(&mut moved, Some("__v"), Effect::ALL, pushes_read);
        assert_eq!(sent, copied, "pushes_read: {pushes_read}");
        let left: Vec<(&str, &Bson)> = moved.iter().map(|c| (&*c.path, &c.value)).collect();
        let pushed = match pushes_read {
            true => bson!(["x"]),
            false => Bson::Null,
        };
        assert_eq!(
            left,
            [
                ("c", &bson!([1])),
                ("b", &Bson::Null),
                ("t", &pushed),
                ("u", &Bson::Null),
                ("w", &Bson::Null),
                ("p", &bson!(["y"])),
            ]
        );
    }
}
