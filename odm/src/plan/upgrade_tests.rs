use mongodb::bson::{bson, doc, rawdoc, Bson};

use super::*;

const KEYS: Hidden = Hidden {
    version: Some("__v"),
    schema: Some("__sv"),
    kind: None,
};

fn of(original: &RawDocument, upgraded: &RawDocument) -> Upgrade {
    upgrade(original, upgraded, KEYS, 0, ("users", &Bson::Int32(1))).unwrap()
}

fn set(path: &str, value: Bson) -> Change {
    Change::new(Op::Set, path.to_string(), value, false)
}

fn unset(path: &str) -> Change {
    Change::new(Op::Unset, path.to_string(), bson!(""), false)
}

#[test]
fn an_upgrade_is_the_top_level_fields_it_set_and_removed() {
    let stored = rawdoc! {
        "_id": 1, "mail": "a@b.c", "full_name": "Ann Lee", "age": 3, "__v": 2, "__fence": 4_i64,
    };
    let upgraded = rawdoc! {
        "_id": 1, "email": "a@b.c", "age": 3, "name": { "first": "Ann", "last": "Lee" },
    };
    let up = of(&stored, &upgraded);
    assert_eq!(
        up.changes,
        vec![
            set("email", bson!("a@b.c")),
            set("name", bson!({ "first": "Ann", "last": "Lee" })),
            unset("mail"),
            unset("full_name"),
        ]
    );
    // Each field as stored: absent for the new ones.
    assert_eq!(
        up.guards,
        vec![
            ("email".to_string(), None),
            ("name".to_string(), None),
            ("mail".to_string(), Some(bson!("a@b.c"))),
            ("full_name".to_string(), Some(bson!("Ann Lee"))),
        ]
    );
    assert_eq!(up.from, 0);
}

#[test]
fn a_changed_value_or_type_is_set_and_guarded_by_its_stored_value() {
    let stored = rawdoc! { "_id": 1, "price": 250, "tags": ["a"], "__sv": 1 };
    let upgraded = rawdoc! { "_id": 1, "price": "2.50", "tags": ["a"] };
    let up = of(&stored, &upgraded);
    assert_eq!(up.changes, vec![set("price", bson!("2.50"))]);
    assert_eq!(up.guards, vec![("price".to_string(), Some(bson!(250)))]);
    // Another integer width is another value: what the step wrote is stored.
    let widened = rawdoc! { "_id": 1, "price": 250_i64, "tags": ["a"] };
    assert_eq!(
        of(&stored, &widened).changes,
        vec![set("price", bson!(250_i64))]
    );
    // Nothing changed: an empty upgrade (the save still stores the version).
    let same = rawdoc! { "_id": 1, "price": 250, "tags": ["a"] };
    assert!(of(&stored, &same).changes.is_empty());
}

#[test]
fn a_field_no_update_can_write_is_refused_naming_the_step() {
    let stored = rawdoc! { "_id": 1, "a": 1 };
    let upgraded = rawdoc! { "_id": 1, "a": 1, "b.c": 2 };
    let Err(Error::Migration(e)) = upgrade(&stored, &upgraded, KEYS, 3, ("users", &Bson::Int32(1)))
    else {
        panic!("accepted")
    };
    assert_eq!(
        (e.from(), e.id().clone(), e.collection()),
        (3, Bson::Int32(1), "users")
    );
    assert!(e.message.contains("\"b.c\""), "{e}");
}

#[test]
fn merge_keeps_the_upgrade_where_the_value_did_not_change_it() {
    let up = vec![set("email", bson!("a@b.c")), unset("mail")];
    let current = rawdoc! { "_id": 1, "email": "a@b.c", "status": "ON" };
    let (changes, kept) = merge(&up, vec![set("status", bson!("ON"))], &current).unwrap();
    assert_eq!(
        changes,
        vec![up[0].clone(), up[1].clone(), set("status", bson!("ON"))]
    );
    assert_eq!(kept, vec!["email".to_string(), "mail".to_string()]);
}

#[test]
fn merge_writes_a_field_both_changed_whole_as_the_value_holds_it() {
    let up = vec![
        set("name", bson!({ "first": "Ann", "last": "Lee" })),
        set("tags", bson!(["a"])),
        unset("full_name"),
    ];
    let current =
        rawdoc! { "_id": 1, "name": { "first": "Anna", "last": "Lee" }, "tags": ["a", "b"] };
    let edits = vec![
        set("name.first", bson!("Anna")),
        Change::new(Op::Push, "tags".to_string(), bson!(["b"]), false),
        set("other", bson!(1)),
    ];
    let (changes, kept) = merge(&up, edits, &current).unwrap();
    assert_eq!(
        changes,
        vec![
            set("name", bson!({ "first": "Anna", "last": "Lee" })),
            set("tags", bson!(["a", "b"])),
            unset("full_name"),
            set("other", bson!(1)),
        ]
    );
    assert_eq!(kept, vec!["full_name".to_string()]);
    // A field the upgrade set and the value then removed is unset.
    let (changes, kept) = merge(
        &[set("nick", bson!("x"))],
        vec![unset("nick")],
        &rawdoc! { "_id": 1 },
    )
    .unwrap();
    assert_eq!((changes, kept), (vec![unset("nick")], vec![]));
}

#[test]
fn terms_put_the_stored_version_in_the_filter_and_the_new_one_in_the_update() {
    let terms = Terms {
        key: "__sv",
        stored: None,
        write: Some(2),
        kept: vec![],
    };
    let (mut filter, mut update) = (doc! { "_id": 1 }, doc! { "$set": { "a": 1 } });
    terms.add(&mut filter, &mut update);
    assert_eq!(filter, doc! { "_id": 1, "__sv": { "$exists": false } });
    assert_eq!(update, doc! { "$set": { "a": 1, "__sv": 2 } });

    let at = Terms {
        stored: Some(2),
        write: None,
        ..terms
    };
    let (mut filter, mut update) = (doc! { "_id": 1, "__sv": 5 }, doc! {});
    at.add(&mut filter, &mut update);
    assert_eq!(
        filter,
        doc! { "_id": 1, "__sv": 5, "$and": [{ "__sv": 2 }] }
    );
    assert_eq!(update, doc! {});
}

#[test]
fn rewrites_tells_the_fields_of_the_upgrade() {
    let up = Upgrade {
        from: 0,
        changes: vec![set("name", bson!({})), unset("mail")],
        guards: vec![],
    };
    assert!(rewrites(&up, "name"));
    assert!(rewrites(&up, "name.first"));
    assert!(rewrites(&up, "mail"));
    assert!(!rewrites(&up, "names"));
    assert!(!rewrites(&up, "email"));
}
