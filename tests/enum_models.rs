//! Enum models (issue 33): `#[derive(Document)]` on an internally tagged
//! enum keeps several kinds of document in one collection. A document is
//! stored with its kind beside its fields, saves like a struct's, and a
//! save that changes its kind rewrites it into exactly the new kind's
//! fields in one checked, version-bumping write. The kind is part of every
//! write's filter, so a copy of the old kind never writes into the new one
//! (Mongoose lost data in exactly these shapes: #5130, #9600).

use crate::common::bson as bson_release;
use crate::enum_support;

use enum_support::{click, purchase, stored, Event, Purchase};
use odm::bson::Bson;
use odm::prelude::*;
use odm_testing::TestDb;

#[tokio::test]
async fn a_document_is_stored_with_its_kind_and_loads_back_as_its_variant() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#buy");
    let doc = events.create(Event::Click(c.clone())).await.unwrap();
    assert_eq!(doc.version(), Some(0));
    assert_eq!(
        stored(&events, c.id).await.unwrap(),
        doc! { "kind": "Click", "_id": c.id, "element": "#buy", "tags": [], "__v": 0 }
    );
    let signup_id = ObjectId::new();
    events
        .create(Event::Signup {
            id: signup_id,
            email: "a@b.c".into(),
            referrals: vec![],
        })
        .await
        .unwrap();
    let loaded = events.find_by_id(c.id).await.unwrap().unwrap();
    assert_eq!(*loaded, Event::Click(c));
    let loaded = events.find_by_id(signup_id).await.unwrap().unwrap();
    assert!(matches!(&*loaded, Event::Signup { email, .. } if email == "a@b.c"));
    assert_eq!(events.count(doc! {}).await.unwrap(), 2);
    t.finish().await;
}

#[tokio::test]
async fn a_save_within_a_kind_holds_the_kind_in_its_filter() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#buy");
    let mut doc = events.create(Event::Click(c.clone())).await.unwrap();
    if let Event::Click(c) = &mut *doc {
        c.element = "#cart".into();
    }
    assert_eq!(
        doc.changes(),
        Some((
            doc! { "_id": c.id, "kind": "Click" },
            doc! { "$set": { "element": "#cart" } }
        ))
    );
    doc.save().await.unwrap();
    assert_eq!(doc.version(), Some(0));
    assert_eq!(
        stored(&events, c.id)
            .await
            .unwrap()
            .get_str("element")
            .unwrap(),
        "#cart"
    );
    t.finish().await;
}

#[tokio::test]
async fn changing_the_kind_rewrites_the_document_in_one_checked_write() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#buy");
    let mut doc = events.create(Event::Click(c.clone())).await.unwrap();
    *doc = Event::Purchase(Purchase {
        id: c.id,
        cents: 500,
        tags: vec![],
    });
    let (filter, update) = doc.changes().unwrap();
    assert_eq!(filter, doc! { "_id": c.id, "kind": "Click", "__v": 0 });
    assert_eq!(
        update,
        doc! {
            "$set": { "kind": "Purchase", "cents": 500_i64 },
            "$unset": { "element": "" },
            "$inc": { "__v": 1 },
        }
    );
    doc.save().await.unwrap();
    assert_eq!(doc.version(), Some(1));
    // Exactly the new kind's fields: nothing of the old one left.
    assert_eq!(
        stored(&events, c.id).await.unwrap(),
        doc! { "kind": "Purchase", "_id": c.id, "tags": [], "__v": 1, "cents": 500_i64 }
    );
    let again = events.find_by_id(c.id).await.unwrap().unwrap();
    assert_eq!(*again, *doc);
    // Into a struct variant and back: the same rule.
    let signup = Event::Signup {
        id: c.id,
        email: "a@b.c".into(),
        referrals: vec!["x".into()],
    };
    *doc = signup.clone();
    doc.save().await.unwrap();
    assert_eq!(
        stored(&events, c.id).await.unwrap(),
        doc! { "kind": "Signup", "_id": c.id, "__v": 2, "email": "a@b.c", "referrals": ["x"] }
    );
    assert_eq!(*events.find_by_id(c.id).await.unwrap().unwrap(), signup);
    t.finish().await;
}

#[tokio::test]
async fn a_stale_copy_of_the_old_kind_never_writes_into_the_new_one() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#buy");
    events.create(Event::Click(c.clone())).await.unwrap();
    let mut a = events.find_by_id(c.id).await.unwrap().unwrap();
    let mut b = events.find_by_id(c.id).await.unwrap().unwrap();
    *a = Event::Purchase(Purchase {
        id: c.id,
        cents: 7,
        tags: vec![],
    });
    a.save().await.unwrap();
    let after_a = stored(&events, c.id).await.unwrap();

    // A scalar edit is not version-checked in the default mode; the kind
    // in the filter refuses it all the same.
    if let Event::Click(c) = &mut *b {
        c.element = "#late".into();
    }
    let Err(Error::Version(e)) = b.save().await else {
        panic!("a stale copy of the old kind must fail")
    };
    assert_eq!(e.version, 0);
    assert_eq!(e.modified_paths, vec!["element".to_string()]);
    assert_eq!(stored(&events, c.id).await.unwrap(), after_a);
    // Nor does a push (not checked either), nor a delete.
    if let Event::Click(c) = &mut *b {
        c.tags.push("t".into());
    }
    assert!(matches!(b.save().await, Err(Error::Version(_))));
    assert!(matches!(b.delete().await, Err(Error::NotFound(_))));
    assert_eq!(stored(&events, c.id).await.unwrap(), after_a);
    // A copy with nothing to write reports the same.
    let mut untouched = b;
    untouched.reload().await.unwrap();
    assert!(matches!(&*untouched, Event::Purchase(p) if p.cents == 7));
    t.finish().await;
}

#[tokio::test]
async fn a_change_of_kind_keeps_the_id() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#buy");
    let mut doc = events.create(Event::Click(c.clone())).await.unwrap();
    let before = stored(&events, c.id).await.unwrap();
    // A new variant built with a new id: refused before sending, the Doc
    // keeps its change.
    *doc = Event::Purchase(purchase(5));
    let e = doc.save().await.unwrap_err();
    let Error::Validation(errors) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(errors.paths(), vec!["_id"], "{e}");
    assert!(matches!(&*doc, Event::Purchase(_)));
    assert_eq!(doc.version(), Some(0));
    assert_eq!(stored(&events, c.id).await.unwrap(), before);
    t.finish().await;
}

#[tokio::test]
async fn a_stale_change_of_kind_fails_instead_of_overwriting() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#buy");
    events.create(Event::Click(c.clone())).await.unwrap();
    let mut a = events.find_by_id(c.id).await.unwrap().unwrap();
    let mut b = events.find_by_id(c.id).await.unwrap().unwrap();
    // A pushes a tag (bumps), B changes the kind from the old copy.
    if let Event::Click(c) = &mut *a {
        c.tags.push("saved".into());
    }
    a.save().await.unwrap();
    *b = Event::Purchase(Purchase {
        id: c.id,
        cents: 1,
        tags: vec![],
    });
    let Err(Error::Version(_)) = b.save().await else {
        panic!("a change of kind checks the version")
    };
    let s = stored(&events, c.id).await.unwrap();
    assert_eq!(s.get_str("kind").unwrap(), "Click");
    assert_eq!(s.get_array("tags").unwrap(), &vec![Bson::from("saved")]);
    // Reloaded, the same change lands.
    b.reload().await.unwrap();
    *b = Event::Purchase(Purchase {
        id: c.id,
        cents: 1,
        tags: vec!["saved".into()],
    });
    b.save().await.unwrap();
    assert_eq!(
        stored(&events, c.id).await.unwrap(),
        doc! { "kind": "Purchase", "_id": c.id, "tags": ["saved"], "__v": 2, "cents": 1_i64 }
    );
    t.finish().await;
}

#[tokio::test]
async fn a_deleted_document_is_not_found_not_a_version_error() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#buy");
    events.create(Event::Click(c.clone())).await.unwrap();
    let mut a = events.find_by_id(c.id).await.unwrap().unwrap();
    events.delete_many(doc! {}).await.unwrap();
    if let Event::Click(c) = &mut *a {
        c.element = "#gone".into();
    }
    assert!(matches!(a.save().await, Err(Error::NotFound(_))));
    t.finish().await;
}

#[tokio::test]
async fn the_new_kind_keeps_a_field_the_store_lacked() {
    // Stored without `tags` (another writer): the copy loads them as its
    // default, `[]`. The new kind has `tags` equal to that default, so the
    // diff alone would not write them; the change of kind does.
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let id = ObjectId::new();
    events
        .collection()
        .insert_one(doc! { "_id": id, "kind": "Click", "element": "#x", "__v": 0 })
        .await
        .unwrap();
    let mut doc = events.find_by_id(id).await.unwrap().unwrap();
    *doc = Event::Purchase(Purchase {
        id,
        cents: 3,
        tags: vec![],
    });
    doc.save().await.unwrap();
    assert_eq!(
        stored(&events, id).await.unwrap(),
        doc! { "_id": id, "kind": "Purchase", "__v": 1, "cents": 3_i64, "tags": [] }
    );
    t.finish().await;
}

/// The load's fast path (the stored kind read, the newtype variant's type
/// decoded directly) gives exactly what serde's internally tagged decoding
/// gives, whatever the stored order and extra fields; what the fast path
/// gives up on goes through serde itself.
#[tokio::test]
async fn the_fast_decoding_gives_what_serde_gives() {
    let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/")
        .await
        .unwrap();
    let events = Event::model(&client.database("enum_models"));
    let id = ObjectId::new();
    let binary = odm::bson::Binary {
        subtype: odm::bson::spec::BinarySubtype::Generic,
        bytes: vec![1, 2, 3],
    };
    let cases = [
        doc! { "kind": "Click", "_id": id, "element": "#a", "tags": ["x"] },
        // The kind last, the version between the fields.
        doc! { "_id": id, "element": "#a", "__v": 3, "tags": [], "kind": "Click" },
        // Fields the type does not know, one of a type the fast path
        // leaves to bson; a field the store lacks (`tags`).
        doc! { "kind": "Click", "_id": id, "extra": { "a": 1 }, "element": "#a", "bin": binary },
        // An Int32 read into an i64.
        doc! { "kind": "Purchase", "_id": id, "cents": 5, "tags": ["y"] },
        doc! { "kind": "Signup", "_id": id, "email": "a@b.c" },
    ];
    for stored in cases {
        let raw = odm::bson::RawDocumentBuf::try_from(&stored).unwrap();
        let fast = events.hydrate(&raw).unwrap();
        let mut plain = stored.clone();
        plain.remove("__v");
        let serde: Event = bson_release::from_bson(Bson::Document(plain)).unwrap();
        assert_eq!(*fast, serde, "{stored}");
    }
    // A kind the model does not know, and none at all: refused at load,
    // naming the document.
    for (stored, says) in [
        // (The value itself is shown only with values switched on.)
        (
            doc! { "kind": "Refund", "_id": id },
            "field \"kind\": unknown variant",
        ),
        (doc! { "_id": id, "element": "#a" }, "missing field `kind`"),
    ] {
        let raw = odm::bson::RawDocumentBuf::try_from(&stored).unwrap();
        let e = events.hydrate(&raw).unwrap_err();
        assert!(matches!(e, Error::Deserialize(_)), "{e:?}");
        assert!(e.to_string().contains(says), "{e}");
        assert!(e.to_string().contains(&id.to_hex()), "{e}");
    }
    client.shutdown().await;
}
