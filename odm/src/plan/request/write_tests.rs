//! The request of each write, built without a server.

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{bson, doc, Bson};
use serde::{Deserialize, Serialize};

use super::*;
use crate::plan::diff::{Change, Op};
use crate::plan::versioning::Effect;
use crate::schema::meta::{Meta, Versioning};

#[derive(Serialize, Deserialize)]
struct Item {
    _id: i32,
    n: i32,
}

static META: Meta = Meta {
    name: "Item",
    collection: "items",
    versioning: Versioning::DEFAULT,
    fields: &[("_id", "_id"), ("n", "n")],
    indexes: &[],
    timestamps: None,
    shard_key: &[],
    hooks: false,
    kinds: None,
    schema: None,
};

impl crate::schema::Schema for Item {
    fn __odm_meta() -> &'static Meta {
        &META
    }
}

fn plan(changes: Vec<Change>, effect: Effect) -> Plan {
    Plan {
        current: crate::plan::current::Current::Whole(
            RawDocumentBuf::try_from(&doc! { "_id": 1, "n": 7 }).unwrap(),
            crate::codec::offsets::Offsets::new(),
        ),
        unchanged: crate::codec::same::Unchanged::NONE,
        changes,
        effect,
        stamp: None,
        rewrites: Vec::new(),
        positions: Vec::new(),
        reordered: false,
        kind: None,
        schema: None,
        pushes_read: false,
    }
}

fn set_n() -> Change {
    Change {
        op: Op::Set,
        path: "n".into(),
        value: bson!(7),
        positional: false,
        counts: Vec::new(),
        drops: false,
    }
}

#[test]
fn an_insert_stores_version_zero_and_the_fence() {
    let request = insert::<Item>(plan(Vec::new(), Effect::NONE), Some(4)).unwrap();
    let Send::Insert(stored) = &request.send else {
        panic!("not an insert")
    };
    assert_eq!(
        mongodb::bson::Document::try_from(stored.as_ref()).unwrap(),
        doc! { "_id": 1, "n": 7, "__v": 0, "__fence": 4_i64 }
    );
    assert!(matches!(
        request.commit,
        Commit::Saved {
            id: Bson::Int32(1),
            inserted: true,
            ..
        }
    ));
    assert!(request.follow_up.fence.is_none() && request.follow_up.exists.is_none());
}

#[test]
fn a_fenced_update_carries_the_fence_and_reads_it_on_a_miss() {
    let request = update::<Item>(
        Bson::Int32(1),
        doc! { "_id": 1 },
        Some(3),
        plan(vec![set_n()], Effect::NONE),
        Some(9),
    );
    let Send::Update { filter, update } = &request.send else {
        panic!("not an update")
    };
    assert_eq!(
        filter,
        &doc! { "_id": 1, "__fence": { "$not": { "$gt": 9_i64 } } }
    );
    assert_eq!(update, &doc! { "$set": { "n": 7, "__fence": 9_i64 } });
    assert_eq!(request.follow_up.fence, Some((doc! { "_id": 1 }, 9)));
    assert_eq!(request.follow_up.exists, None);
    // No version term and no guard: a miss is a missing document.
    assert!(matches!(request.missed("items", true), Error::NotFound(_)));
}

#[test]
fn a_versioned_update_misses_as_a_version_error() {
    let request = update::<Item>(
        Bson::Int32(1),
        doc! { "_id": 1 },
        Some(3),
        plan(vec![set_n()], Effect::WHERE),
        None,
    );
    let Send::Update { filter, .. } = &request.send else {
        panic!("not an update")
    };
    assert_eq!(filter, &doc! { "_id": 1, "__v": 3 });
    match request.missed("items", true) {
        Error::Version(e) => {
            assert_eq!(
                (e.version, e.modified_paths.clone()),
                (3, vec!["n".to_string()])
            );
        }
        other => panic!("{other:?}"),
    }
    // The follow-up read found the document gone.
    assert!(matches!(request.missed("items", false), Error::NotFound(_)));
}

#[test]
fn nothing_to_write_is_a_check_and_a_delete_misses_as_not_found() {
    let request = update::<Item>(
        Bson::Int32(1),
        doc! { "_id": 1 },
        None,
        plan(Vec::new(), Effect::NONE),
        None,
    );
    assert!(matches!(&request.send, Send::Check(f) if f == &doc! { "_id": 1 }));
    let request = delete(doc! { "_id": 1 });
    assert!(matches!(request.commit, Commit::Deleted));
    match request.missed("items", true) {
        Error::NotFound(e) => assert_eq!(e.filter, doc! { "_id": 1 }),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_filter_moved_to_the_driver_is_built_again_for_the_miss() {
    // Fenced, versioned, guarded: every kind of term the filter can hold.
    let mut effect = Effect::WHERE;
    effect.bump = true;
    for (effect, fence) in [(Effect::NONE, Some(9)), (effect, Some(9)), (effect, None)] {
        let mut request = update::<Item>(
            Bson::Int32(1),
            doc! { "_id": 1 },
            Some(3),
            plan(vec![set_n()], effect),
            fence,
        );
        let Send::Update { filter, .. } = &mut request.send else {
            panic!("not an update")
        };
        let sent = std::mem::take(filter);
        request.refill_filter::<Item>(doc! { "_id": 1 });
        let Send::Update { filter, .. } = &request.send else {
            panic!("not an update")
        };
        assert_eq!(filter, &sent);
        match request.missed("items", false) {
            Error::NotFound(e) => assert_eq!(e.filter, sent),
            other => panic!("{other:?}"),
        }
    }
}
