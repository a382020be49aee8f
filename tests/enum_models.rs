//! Enum models (issue 33): `#[derive(Document)]` on an internally tagged
//! enum keeps several kinds of document in one collection. A document is
//! stored with its kind beside its fields, saves like a struct's, and a
//! save that changes its kind rewrites it into exactly the new kind's
//! fields in one checked, version-bumping write. The kind is part of every
//! write's filter, so a copy of the old kind never writes into the new one
//! (Mongoose lost data in exactly these shapes: #5130, #9600).

use odm::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "events")]
#[serde(tag = "kind")]
enum Event {
    Click(Click),
    Purchase(Purchase),
    Signup {
        #[serde(rename = "_id")]
        id: ObjectId,
        email: String,
        #[serde(default)]
        referrals: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
    element: String,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
struct Purchase {
    #[serde(rename = "_id")]
    id: ObjectId,
    cents: i64,
    #[serde(default)]
    tags: Vec<String>,
}

fn click(element: &str) -> Click {
    Click {
        id: ObjectId::new(),
        element: element.into(),
        tags: vec![],
    }
}

fn purchase(cents: i64) -> Purchase {
    Purchase {
        id: ObjectId::new(),
        cents,
        tags: vec![],
    }
}

async fn stored(events: &Model<Event>, id: ObjectId) -> Option<BsonDocument> {
    events
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
}

fn id_of(e: &Event) -> ObjectId {
    match e {
        Event::Click(c) => c.id,
        Event::Purchase(p) => p.id,
        Event::Signup { id, .. } => *id,
    }
}

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

#[tokio::test]
async fn set_based_writes_cannot_change_a_kind() {
    // Mongoose #9600: a `$set` of the discriminator key changed the kind
    // and left the old kind's fields.
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#buy");
    events.create(Event::Click(c.clone())).await.unwrap();
    let before = stored(&events, c.id).await.unwrap();
    let e = events
        .update_many(doc! {}, doc! { "$set": { "kind": "Purchase", "cents": 1 } })
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Validation(_)), "{e:?}");
    assert!(e.to_string().contains("the kind of `Event`"), "{e}");
    let e = events
        .claim(
            doc! { "_id": c.id },
            doc! { "$rename": { "element": "kind" } },
        )
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Validation(_)), "{e:?}");
    let e = events
        .upsert(doc! { "_id": c.id })
        .set(doc! { "kind": "Purchase" })
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Validation(_)), "{e:?}");
    assert_eq!(stored(&events, c.id).await.unwrap(), before);
    t.finish().await;
}

#[tokio::test]
async fn a_kind_handle_never_reaches_another_kind() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let clicks = events.variant::<Click>();
    let purchases = events.variant::<Purchase>();
    assert_eq!((clicks.name(), purchases.name()), ("Click", "Purchase"));
    for i in 0..3 {
        let mut c = click(&format!("#c{i}"));
        c.tags = vec!["shared".into()];
        clicks.create(c).await.unwrap();
        let mut p = purchase(i);
        p.tags = vec!["shared".into()];
        let doc = purchases.create(p).await.unwrap();
        assert!(matches!(&*doc, Event::Purchase(_)));
    }
    assert_eq!(clicks.count(doc! {}).await.unwrap(), 3);
    assert_eq!(clicks.count(doc! { "tags": "shared" }).await.unwrap(), 3);
    // The caller's own term on the kind key still applies.
    assert_eq!(clicks.count(doc! { "kind": "Purchase" }).await.unwrap(), 0);
    let found = clicks.find(doc! { "tags": "shared" }).await.unwrap();
    assert_eq!(found.len(), 3);
    assert!(found.iter().all(|d| matches!(&**d, Event::Click(_))));
    // A typed filter of the kind's own fields.
    let f = Click::fields();
    assert_eq!(clicks.count(f.element().eq("#c1")).await.unwrap(), 1);
    assert_eq!(
        purchases
            .count(Purchase::fields().cents().gte(1_i64))
            .await
            .unwrap(),
        2
    );
    assert!(clicks.exists(f.element().eq("#c2")).await.unwrap());
    assert!(!purchases.exists(doc! { "element": "#c2" }).await.unwrap());
    let one = purchases
        .find_one(doc! { "tags": "shared" })
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(&*one, Event::Purchase(_)));
    // An _id of another kind is not found through this kind's handle.
    let a_click = id_of(&found[0]);
    assert!(purchases.find_by_id(a_click).await.unwrap().is_none());
    assert!(clicks.find_by_id(a_click).await.unwrap().is_some());
    // Updates and deletes stay within the kind.
    let report = clicks
        .update_many(
            doc! { "tags": "shared" },
            doc! { "$push": { "tags": "seen" } },
        )
        .await
        .unwrap();
    assert_eq!((report.matched(), report.modified()), (3, 3));
    assert_eq!(events.count(doc! { "tags": "seen" }).await.unwrap(), 3);
    assert_eq!(purchases.count(doc! { "tags": "seen" }).await.unwrap(), 0);
    assert_eq!(purchases.delete_many(doc! {}).await.unwrap(), 3);
    assert_eq!(clicks.count(doc! {}).await.unwrap(), 3);
    assert_eq!(events.count(doc! {}).await.unwrap(), 3);
    t.finish().await;
}

#[tokio::test]
async fn a_kind_handle_claims_and_upserts_only_its_kind() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let clicks = events.variant::<Click>();
    let purchases = events.variant::<Purchase>();
    let p = purchase(5);
    purchases.create(p.clone()).await.unwrap();
    assert!(clicks
        .claim(
            doc! { "_id": p.id },
            doc! { "$set": { "element": "#stolen" } }
        )
        .await
        .unwrap()
        .is_none());
    let claimed = purchases
        .claim(doc! { "_id": p.id }, doc! { "$inc": { "cents": 1 } })
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(&*claimed, Event::Purchase(q) if q.cents == 6));
    // An upsert through a kind's handle inserts a document of that kind.
    let id = ObjectId::new();
    let made = clicks
        .upsert(doc! { "_id": id })
        .set_on_insert(doc! { "element": "#new", "tags": [] })
        .await
        .unwrap();
    assert!(matches!(&*made, Event::Click(c) if c.element == "#new"));
    assert_eq!(
        stored(&events, id).await.unwrap().get_str("kind").unwrap(),
        "Click"
    );
    t.finish().await;
}

#[tokio::test]
async fn bulk_save_keeps_the_kind_rules() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let (c1, c2) = (click("#1"), click("#2"));
    events.create(Event::Click(c1.clone())).await.unwrap();
    events.create(Event::Click(c2.clone())).await.unwrap();
    let mut stale = events.find_by_id(c2.id).await.unwrap().unwrap();
    let untouched = events.find_by_id(c2.id).await.unwrap().unwrap();
    let gone = events.find_by_id(c1.id).await.unwrap().unwrap();
    let mut docs = events
        .find(doc! {})
        .sort(doc! { "element": 1 })
        .await
        .unwrap();
    *docs[0] = Event::Purchase(Purchase {
        id: c1.id,
        cents: 1,
        tags: vec![],
    });
    *docs[1] = Event::Purchase(Purchase {
        id: c2.id,
        cents: 2,
        tags: vec![],
    });
    let outcomes = events.bulk_save(&mut docs).await.unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    assert_eq!(docs[0].version(), Some(1));
    assert_eq!(
        stored(&events, c1.id).await.unwrap(),
        doc! { "kind": "Purchase", "_id": c1.id, "tags": [], "__v": 1, "cents": 1_i64 }
    );
    events
        .collection()
        .delete_one(doc! { "_id": c1.id })
        .await
        .unwrap();
    // Stale copies of the old kind: an edit, one with nothing to write
    // (a version error, as `save()` tells it), and a deleted one.
    if let Event::Click(c) = &mut *stale {
        c.element = "#stale".into();
    }
    let mut batch = vec![stale, gone];
    let outcomes = events.bulk_save(&mut batch).await.unwrap();
    assert!(
        matches!(outcomes[0], Err(Error::Version(_))),
        "{outcomes:?}"
    );
    assert!(
        matches!(outcomes[1], Err(Error::NotFound(_))),
        "{outcomes:?}"
    );
    let mut batch = vec![untouched];
    let outcomes = events.bulk_save(&mut batch).await.unwrap();
    assert!(
        matches!(outcomes[0], Err(Error::Version(_))),
        "{outcomes:?}"
    );
    assert_eq!(
        stored(&events, c2.id).await.unwrap(),
        doc! { "kind": "Purchase", "_id": c2.id, "tags": [], "__v": 1, "cents": 2_i64 }
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
        let raw = odm::bson::RawDocumentBuf::from_document(&stored).unwrap();
        let fast = events.hydrate(&raw).unwrap();
        let mut plain = stored.clone();
        plain.remove("__v");
        let serde: Event = odm::bson::from_document(plain).unwrap();
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
        let raw = odm::bson::RawDocumentBuf::from_document(&stored).unwrap();
        let e = events.hydrate(&raw).unwrap_err();
        assert!(matches!(e, Error::Deserialize(_)), "{e:?}");
        assert!(e.to_string().contains(says), "{e}");
        assert!(e.to_string().contains(&id.to_hex()), "{e}");
    }
    client.shutdown().await;
}

#[tokio::test]
async fn insert_many_lean_reads_and_update_with_retry_across_kinds() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#a");
    let p = purchase(3);
    let outcomes = events
        .insert_many([Event::Click(c.clone()), Event::Purchase(p.clone())])
        .await
        .unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    let lean: Vec<Event> = events
        .variant::<Purchase>()
        .find(doc! {})
        .lean()
        .await
        .unwrap();
    assert_eq!(lean, vec![Event::Purchase(p.clone())]);
    // A change of kind inside update_with_retry: a checked rewrite, once.
    let done = events
        .update_with_retry(c.id, 3, |e: &mut Event| {
            let Event::Click(c) = e else {
                return Ok(());
            };
            *e = Event::Purchase(Purchase {
                id: c.id,
                cents: 1,
                tags: c.tags.clone(),
            });
            Ok(())
        })
        .await
        .unwrap();
    assert!(matches!(&*done, Event::Purchase(q) if q.cents == 1));
    assert_eq!(
        stored(&events, c.id).await.unwrap(),
        doc! { "kind": "Purchase", "_id": c.id, "tags": [], "__v": 1, "cents": 1_i64 }
    );
    assert_eq!(events.variant::<Click>().count(doc! {}).await.unwrap(), 0);
    t.finish().await;
}
