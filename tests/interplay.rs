//! Where the features meet: schema upgrades pending on a `Doc` (issue 31)
//! with the positional guard (35), enum models (33), referential rules
//! (32) and the stored changes of a version error (34); and a batch saving
//! a document that carries a reference mark. Each test is a bug the
//! review found where two features meet, against the server: the stored
//! document, the exact update (`Doc::changes()`) and the error.

use crate::both_paths;
use crate::common;
use crate::schema_support;

use common::{element_has, in_place, Monitored};
use odm::__private::BulkPath;
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use odm::{ReferencedError, SchemaError, VersionError};
use schema_support::{stored_at, User, UserV1};
use serde::{Deserialize, Serialize};

async fn raw<T: odm::Document>(model: &Model<T>, id: impl Into<Bson>) -> Option<BsonDocument> {
    model
        .collection()
        .find_one(doc! { "_id": id.into() })
        .await
        .unwrap()
}

fn version_error<T: std::fmt::Debug>(outcome: odm::Result<T>) -> Box<VersionError> {
    match outcome {
        Err(Error::Version(e)) => e,
        other => panic!("expected Error::Version, got {other:?}"),
    }
}

fn schema_error<T: std::fmt::Debug>(outcome: &odm::Result<T>) -> &SchemaError {
    match outcome {
        Err(Error::Schema(e)) => e,
        other => panic!("expected Error::Schema, got {other:?}"),
    }
}

fn referenced<T: std::fmt::Debug>(outcome: odm::Result<T>) -> Box<ReferencedError> {
    match outcome {
        Err(Error::Referenced(e)) => e,
        other => panic!("expected Error::Referenced, got {other:?}"),
    }
}

// ---------------------------------------------------------------------
// A struct model with a pending upgrade (`mail` -> `email`) and an array
// of sub-documents the upgrade does not touch.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
// Its one step is the shared test users' first (`mail` renamed `email`).
#[odm(collection = "orders", schema_version = 1, migrate = UserV1::upgrade)]
struct Order {
    #[serde(rename = "_id")]
    id: ObjectId,
    /// v1: renamed from `mail`.
    email: String,
    items: Vec<Item>,
    #[serde(default)]
    visits: i64,
    #[serde(default)]
    note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Item {
    qty: i32,
}

/// An order as the release before schema versions stored it: no `__sv`.
fn order_v0(id: ObjectId) -> BsonDocument {
    doc! {
        "_id": id, "mail": "a@x.io",
        "items": [{ "qty": 1 }, { "qty": 2 }, { "qty": 3 }],
        "visits": 0_i64, "note": "", "__v": 0,
    }
}

async fn seeded_order(m: &Monitored) -> (Model<Order>, ObjectId) {
    let orders = Order::model(m.db());
    let id = ObjectId::new();
    orders.collection().insert_one(order_v0(id)).await.unwrap();
    (orders, id)
}

/// The upgrade's own terms in the filter of a save of a version 0 order:
/// the version, and `mail` still as loaded, `email` and `__sv` absent.
fn upgrade_filter(id: ObjectId) -> BsonDocument {
    doc! {
        "_id": id, "__v": 0, "__sv": { "$exists": false },
        "email": { "$exists": false }, "mail": { "$eq": "a@x.io" },
    }
}

/// 1. An in-place edit of an array element the upgrade does not touch keeps
/// its positional guard: another writer's in-place edit of the same
/// element, which leaves the version as it is (an older instance, or
/// Mongoose in default mode), refuses the upgrading copy's edit instead of
/// being overwritten by it.
#[tokio::test]
async fn an_upgrade_pending_keeps_the_positional_guard_of_an_untouched_array() {
    let m = Monitored::new("interplay-positional").await;
    let (orders, id) = seeded_order(&m).await;
    let mut a = orders.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(a.migrated_from(), Some(0));
    // Another writer edits element 2 in place, without a version bump.
    orders
        .collection()
        .update_one(doc! { "_id": id }, doc! { "$set": { "items.2.qty": 30 } })
        .await
        .unwrap();
    let theirs = raw(&orders, id).await.unwrap();

    a.items[2].qty = 7;
    let expected = (
        in_place(
            upgrade_filter(id),
            vec![element_has("items", 2, &[("qty", Some(3.into()))])],
        ),
        doc! {
            "$set": { "email": "a@x.io", "items.2.qty": 7, "__sv": 1 },
            "$unset": { "mail": "" },
            "$inc": { "__v": 1 },
        },
    );
    assert_eq!(a.changes(), Some(expected.clone()));
    let e = version_error(a.save().await);
    assert_eq!((&e.id, e.version), (&Bson::ObjectId(id), 0));
    assert_eq!(e.modified_paths(), ["email", "mail", "items.2.qty"]);
    assert_eq!(
        e.stored_changes(),
        Some(&["items.2.qty".to_string()][..]),
        "the other writer's edit, not the upgrade's renames"
    );
    // Nothing written: the other writer's value stands, still at version 0.
    assert_eq!(raw(&orders, id).await.unwrap(), theirs);
    assert_eq!(
        theirs.get_array("items").unwrap()[2],
        Bson::from(doc! { "qty": 30 })
    );
    // The failed save left the Doc as it was.
    assert_eq!(a.changes(), Some(expected));
    assert_eq!((a.version(), a.migrated_from()), (Some(0), Some(0)));

    // Reloaded, the same edit lands on top of theirs, with the upgrade.
    a.reload().await.unwrap();
    assert_eq!(a.items[2].qty, 30);
    a.items[2].qty = 7;
    a.save().await.unwrap();
    assert_eq!(
        raw(&orders, id).await.unwrap(),
        doc! {
            "_id": id,
            "items": [{ "qty": 1 }, { "qty": 2 }, { "qty": 7 }],
            "visits": 0_i64, "note": "", "__v": 1, "email": "a@x.io", "__sv": 1,
        }
    );
    m.finish().await;
}

/// 5. The stored changes of a version error on a copy with an upgrade
/// pending name what the other writer changed, compared as this model
/// reads the stored document (upgraded), not the upgrade's renames.
#[tokio::test]
async fn stored_changes_of_an_upgrading_copy_name_only_the_other_writers_fields() {
    let m = Monitored::new("interplay-stored-changes").await;
    let (orders, id) = seeded_order(&m).await;
    let mut a = orders.find_by_id(id).await.unwrap().unwrap();
    orders
        .collection()
        .update_one(
            doc! { "_id": id },
            doc! { "$inc": { "visits": 1_i64, "__v": 1 } },
        )
        .await
        .unwrap();
    let theirs = raw(&orders, id).await.unwrap();
    a.note = "mine".into();
    let e = version_error(a.save().await);
    assert_eq!(e.version, 0);
    assert_eq!(e.modified_paths(), ["email", "mail", "note"]);
    assert_eq!(e.stored_changes(), Some(&["visits".to_string()][..]));
    assert_eq!(raw(&orders, id).await.unwrap(), theirs);
    m.finish().await;
}

// ---------------------------------------------------------------------
// 2. An older model's copy of a document a newer instance upgraded.

/// A save whose filter checks the version (here `increment()`) of a
/// version 1 copy, after a version 2 instance upgraded the document (and
/// so bumped its version): refused as `Error::Schema`, naming the stored
/// and the model's schema versions, not as a version conflict. The plain
/// scalar case is `schema_rolling.rs`'s
/// `an_older_copy_of_a_document_upgraded_meanwhile_is_refused`.
#[tokio::test]
async fn an_older_copy_checking_the_version_of_an_upgraded_document_is_a_schema_refusal() {
    let m = Monitored::new("interplay-older-copy").await;
    let (users, old) = (User::model(m.db()), UserV1::model(m.db()));
    let id = ObjectId::new();
    let at_v1 = stored_at(1, id, 0);
    users.collection().insert_one(at_v1).await.unwrap();
    let mut stale = old.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(stale.migrated_from(), None);
    let mut newer = users.find_by_id(id).await.unwrap().unwrap();
    newer.save().await.unwrap();
    let upgraded = raw(&users, id).await.unwrap();
    assert_eq!(
        (upgraded.get("__sv"), upgraded.get("__v")),
        (Some(&Bson::Int32(2)), Some(&Bson::Int32(1)))
    );

    stale.visits = 42;
    stale.increment();
    assert_eq!(
        stale.changes(),
        Some((
            doc! { "_id": id, "__v": 0, "__sv": 1 },
            doc! { "$set": { "visits": 42_i64 }, "$inc": { "__v": 1 } }
        ))
    );
    let outcome = stale.save().await;
    let e = schema_error(&outcome);
    assert_eq!((e.stored(), e.model(), e.id()), (2, 1, &Bson::ObjectId(id)));
    assert_eq!(raw(&users, id).await.unwrap(), upgraded);
    assert_eq!(stale.visits, 42, "the Doc keeps its change");
    m.finish().await;
}

/// The same in a batch: each outcome is what `save()` gives, so a changed
/// copy checking the version and an unchanged copy (a check of its filter
/// only) are both refused as `Error::Schema`, never committed.
#[tokio::test]
async fn an_older_copy_of_an_upgraded_document_in_a_batch_is_a_schema_refusal() {
    let m = Monitored::new("interplay-older-batch").await;
    let (users, old) = (User::model(m.db()), UserV1::model(m.db()));
    let (ids, mut at_v1) = (vec![ObjectId::new(), ObjectId::new()], Vec::new());
    for (n, id) in ids.iter().enumerate() {
        let stored = stored_at(1, *id, n as i64);
        users.collection().insert_one(stored.clone()).await.unwrap();
        at_v1.push(odm::bson::RawDocumentBuf::try_from(&stored).unwrap());
    }
    // Copies as a version 1 instance loaded them before the upgrade.
    let copy = |n: usize| old.hydrate(&at_v1[n]).unwrap();
    let mut alone = copy(1);
    let mut upgraded = Vec::new();
    for id in &ids {
        let mut newer = users.find_by_id(*id).await.unwrap().unwrap();
        newer.save().await.unwrap();
        upgraded.push(raw(&users, *id).await.unwrap());
    }

    // Alone, an unchanged copy's save checks its filter: refused.
    let e = alone.save().await;
    assert_eq!(schema_error(&e).stored(), 2);
    let mut got = Vec::new();
    for path in [BulkPath::BulkWrite, BulkPath::Commands] {
        let mut batch = vec![copy(0), copy(1)];
        batch[0].visits = 42;
        batch[0].increment();
        let outcomes = old.bulk_save(&mut batch).path(path).await.unwrap();
        for (i, outcome) in outcomes.into_iter().enumerate() {
            got.push((path, i, outcome));
        }
        assert_eq!((batch[0].visits, batch[0].version()), (42, Some(0)));
    }
    // Every outcome is the refusal `save()` gives.
    let refused = |(_, i, outcome): &(BulkPath, usize, odm::Result<()>)| {
        matches!(outcome, Err(Error::Schema(e))
            if (e.stored(), e.model(), e.id()) == (2, 1, &Bson::ObjectId(ids[*i])))
    };
    assert!(got.iter().all(refused), "{got:#?}");
    for (id, upgraded) in ids.iter().zip(&upgraded) {
        assert_eq!(&raw(&users, *id).await.unwrap(), upgraded);
    }
    m.finish().await;
}

// ---------------------------------------------------------------------
// 3. A referencing model whose upgrade writes its reference field.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "writers", referenced_by(Article))]
struct Writer {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "articles", schema_version = 1, migrate = Self::upgrade)]
struct Article {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    /// v1: renamed from `writer`.
    #[odm(reference(on_delete = refuse))]
    author: Ref<Writer>,
}

impl Article {
    fn upgrade(doc: &mut BsonDocument, from: u32) -> Result<(), MigrationError> {
        match from {
            0 => {
                let writer = doc
                    .remove("writer")
                    .ok_or(MigrationError::new("no `writer`"))?;
                doc.insert("author", writer);
                Ok(())
            }
            _ => Err(MigrationError::new(format!("no step from {from}"))),
        }
    }
}

/// The save of an upgrade that renames `writer` to `author` writes a
/// reference under a rule: it marks the target (its `__refs` counter) in
/// a transaction, so a delete of the target is refused; and a reference to
/// nothing is refused as `Error::Dangling`, writing nothing.
#[tokio::test]
async fn an_upgrade_that_writes_a_reference_marks_its_target() {
    let m = Monitored::new("interplay-refs").await;
    let (writers, articles) = (Writer::model(m.db()), Article::model(m.db()));
    let ann = writers
        .create(Writer {
            id: ObjectId::new(),
            name: "ann".into(),
        })
        .await
        .unwrap();
    let id = ObjectId::new();
    let v0 = doc! { "_id": id, "title": "t", "writer": ann.id, "__v": 0 };
    articles.collection().insert_one(v0).await.unwrap();

    let mut article = articles.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(article.author, Ref::new(ann.id));
    assert_eq!(
        article.changes(),
        Some((
            doc! {
                "_id": id, "__v": 0, "__sv": { "$exists": false },
                "author": { "$exists": false }, "writer": { "$eq": ann.id },
            },
            doc! {
                "$set": { "author": ann.id, "__sv": 1 },
                "$unset": { "writer": "" },
                "$inc": { "__v": 1 },
            }
        ))
    );
    m.monitor.clear();
    article.save().await.unwrap();
    let sent: Vec<String> = m.monitor.all().into_iter().map(|s| s.name).collect();
    assert_eq!(sent, ["update", "update", "commitTransaction"]);
    let mark = &m.monitor.named("update")[0].command;
    assert_eq!(mark.get_str("update").unwrap(), "writers");
    let stored_ann = raw(&writers, ann.id).await.unwrap();
    assert_eq!(stored_ann.get("__refs"), Some(&Bson::Int64(1)));
    assert_eq!(stored_ann.get("__v"), Some(&Bson::Int32(0)));
    assert_eq!(
        raw(&articles, id).await.unwrap(),
        doc! { "_id": id, "title": "t", "__v": 1, "author": ann.id, "__sv": 1 }
    );

    let mut ann = writers.find_by_id(ann.id).await.unwrap().unwrap();
    let e = referenced(ann.delete().await);
    assert_eq!(
        (e.collection(), e.referrers(), e.path(), e.count()),
        ("writers", "articles", "author", 1)
    );
    assert!(raw(&writers, ann.id).await.is_some());

    // An old document referring to nothing cannot be upgraded into a
    // dangling reference.
    let (ghost, orphan) = (ObjectId::new(), ObjectId::new());
    let v0 = doc! { "_id": orphan, "title": "o", "writer": ghost, "__v": 0 };
    articles.collection().insert_one(v0.clone()).await.unwrap();
    let mut orphaned = articles.find_by_id(orphan).await.unwrap().unwrap();
    match orphaned.save().await {
        Err(Error::Dangling(e)) => {
            assert_eq!((e.path(), e.id()), ("author", &Bson::ObjectId(ghost)));
        }
        other => panic!("expected Error::Dangling, got {other:?}"),
    }
    assert_eq!(raw(&articles, orphan).await.unwrap(), v0);
    assert_eq!(orphaned.migrated_from(), Some(0));
    m.finish().await;
}

// ---------------------------------------------------------------------
// 4. An enum model whose upgrade gives old documents their kind.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "events", schema_version = 1, migrate = Self::upgrade)]
#[serde(tag = "kind")]
enum Event {
    Click(Click),
    Purchase(Purchase),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
    element: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
struct Purchase {
    #[serde(rename = "_id")]
    id: ObjectId,
    cents: i64,
}

impl Event {
    /// Version 0 documents were written when the collection held clicks
    /// only, without a kind.
    fn upgrade(doc: &mut BsonDocument, from: u32) -> Result<(), MigrationError> {
        match from {
            0 => {
                if !doc.contains_key("kind") {
                    doc.insert("kind", "Click");
                }
                Ok(())
            }
            _ => Err(MigrationError::new(format!("no step from {from}"))),
        }
    }
}

async fn old_click(events: &Model<Event>, element: &str) -> ObjectId {
    let id = ObjectId::new();
    let v0 = doc! { "_id": id, "element": element, "__v": 0 };
    events.collection().insert_one(v0).await.unwrap();
    id
}

/// The save of an upgrade that gives a document its kind does not require
/// the stored document to hold that kind already: it lands, and stores
/// the kind and the schema version; a second copy loaded before it is
/// refused as stale. A delete of a freshly loaded old document deletes it.
#[tokio::test]
async fn an_upgrade_that_gives_an_enum_document_its_kind_saves_and_deletes() {
    let m = Monitored::new("interplay-enum").await;
    let events = Event::model(m.db());
    let id = old_click(&events, "#buy").await;
    let mut a = events.find_by_id(id).await.unwrap().unwrap();
    let mut b = events.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(
        *a,
        Event::Click(Click {
            id,
            element: "#buy".into()
        })
    );
    assert_eq!(a.migrated_from(), Some(0));
    assert_eq!(
        a.changes(),
        Some((
            doc! {
                "_id": id, "__v": 0, "__sv": { "$exists": false },
                "kind": { "$exists": false },
            },
            doc! { "$set": { "kind": "Click", "__sv": 1 }, "$inc": { "__v": 1 } }
        ))
    );
    a.save().await.unwrap();
    assert_eq!(
        raw(&events, id).await.unwrap(),
        doc! { "_id": id, "element": "#buy", "__v": 1, "kind": "Click", "__sv": 1 }
    );
    assert_eq!((a.migrated_from(), a.version()), (None, Some(1)));
    // Upgraded now: the next save is an ordinary one, the kind in its filter.
    if let Event::Click(c) = &mut *a {
        c.element = "#cart".into();
    }
    assert_eq!(
        a.changes(),
        Some((
            doc! { "_id": id, "kind": "Click", "__sv": 1 },
            doc! { "$set": { "element": "#cart" } }
        ))
    );
    a.save().await.unwrap();
    let saved = raw(&events, id).await.unwrap();

    // The copy loaded at version 0 before the upgrade landed is stale.
    if let Event::Click(c) = &mut *b {
        c.element = "#late".into();
    }
    let e = version_error(b.save().await);
    assert_eq!((&e.id, e.version), (&Bson::ObjectId(id), 0));
    assert_eq!(raw(&events, id).await.unwrap(), saved);

    // A freshly loaded old document deletes.
    let id = old_click(&events, "#gone").await;
    let mut doomed = events.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(doomed.migrated_from(), Some(0));
    doomed.delete().await.unwrap();
    assert_eq!(raw(&events, id).await, None);
    m.finish().await;
}

// ---------------------------------------------------------------------
// 6. A batch saving a document that carries a reference mark (`__refs`).

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "owners", optimistic_concurrency, referenced_by(Pet))]
struct Owner {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "pets")]
struct Pet {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(reference(on_delete = refuse))]
    owner: Ref<Owner>,
}

fn owner(name: &str) -> Owner {
    Owner {
        id: ObjectId::new(),
        name: name.into(),
    }
}

both_paths!(a_batch_saving_a_marked_document_commits_it);

/// A batch of two changed `Doc`s of which one is stale, so the commands'
/// count (one of two matched) is told apart by one read: the `Doc` whose
/// document carries the mark `__refs` is read as holding its write (the
/// mark is odm's, as the version key and the fence are), committed and Ok;
/// the stale one is a version error.
async fn a_batch_saving_a_marked_document_commits_it(path: BulkPath) {
    let m = Monitored::new(&format!("interplay-bulk-refs-{path:?}")).await;
    let (owners, pets) = (Owner::model(m.db()), Pet::model(m.db()));
    let (ann, bob) = (owner("ann"), owner("bob"));
    owners
        .insert_many([ann.clone(), bob.clone()])
        .await
        .unwrap();
    pets.create(Pet {
        id: ObjectId::new(),
        owner: Ref::from(&ann),
    })
    .await
    .unwrap();
    let marked = raw(&owners, ann.id).await.unwrap();
    assert_eq!(marked.get("__refs"), Some(&Bson::Int64(1)));

    let marked = owners.find_by_id(ann.id).await.unwrap().unwrap();
    let stale = owners.find_by_id(bob.id).await.unwrap().unwrap();
    let mut newer = owners.find_by_id(bob.id).await.unwrap().unwrap();
    newer.name = "Bob".into();
    newer.save().await.unwrap();
    let bobs = raw(&owners, bob.id).await.unwrap();

    let mut batch = vec![marked, stale];
    batch[0].name = "Ann".into();
    batch[1].name = "Robert".into();
    let outcomes = owners.bulk_save(&mut batch).path(path).await.unwrap();
    assert!(outcomes[0].is_ok(), "{:?}", outcomes[0]);
    let Err(Error::Version(e)) = &outcomes[1] else {
        panic!("the stale copy: {:?}", outcomes[1])
    };
    assert_eq!((&e.id, e.version), (&Bson::ObjectId(bob.id), 0));
    assert_eq!(
        raw(&owners, ann.id).await.unwrap(),
        doc! { "_id": ann.id, "name": "Ann", "__v": 1, "__refs": 1_i64 }
    );
    assert_eq!((batch[0].version(), batch[0].changes()), (Some(1), None));
    assert_eq!(raw(&owners, bob.id).await.unwrap(), bobs);
    assert_eq!(batch[1].version(), Some(0));
    m.finish().await;
}
