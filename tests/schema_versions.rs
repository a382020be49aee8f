//! Schema versions (issue 31), lazily on load, against the server: a
//! document stored at any older version loads as the model, upgraded in
//! memory; its next save writes exactly the upgrade (and whatever the code
//! changed), under the version contract; two copies upgrading one
//! document: one lands, the other fails with `Error::Version`.

use crate::common;
use crate::schema_support;

use std::future::IntoFuture;

use common::{Monitored, Race};
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use schema_support::{fields, stored_at, Name, User};

async fn seeded(label: &str, versions: &[u32]) -> (Monitored, Model<User>, Vec<ObjectId>) {
    let m = Monitored::new(label).await;
    let users = User::model(m.db());
    let mut ids = Vec::new();
    for (n, version) in versions.iter().enumerate() {
        let id = ObjectId::new();
        let stored = stored_at(*version, id, n as i64);
        users.collection().insert_one(stored).await.unwrap();
        ids.push(id);
    }
    m.monitor.clear();
    (m, users, ids)
}

async fn stored(users: &Model<User>, id: ObjectId) -> BsonDocument {
    common::stored(users, id).await
}

/// The value as a save stores it, compared with the stored document.
fn same_as_stored(doc: &Doc<User>, stored: &BsonDocument) {
    let value = common::bson::to_document(&**doc).unwrap();
    assert_eq!(fields(&value), fields(stored), "in memory vs stored");
}

#[tokio::test]
async fn every_older_version_loads_as_the_model_and_saves_exactly_the_upgrade() {
    let (m, users, ids) = seeded("schema-load-save", &[0, 1, 2]).await;
    for (at, id) in ids.iter().enumerate() {
        let mut user = users.find_by_id(*id).await.unwrap().expect("stored");
        let n = at as i64;
        assert_eq!(user.email, format!("u{n}@x.io"));
        assert_eq!(
            user.name,
            Name {
                first: format!("First{n}"),
                last: format!("Last{n}")
            }
        );
        assert_eq!(user.visits, n);
        assert_eq!(user.schema_version(), Some(at as i64));
        let expected_from = (at < 2).then_some(at as u32);
        assert_eq!(user.migrated_from(), expected_from);
        let name = doc! { "first": format!("First{n}"), "last": format!("Last{n}") };
        let (full, mail) = (format!("First{n} Last{n}"), format!("u{n}@x.io"));
        let expected = match at {
            0 => Some((
                doc! {
                    "_id": id, "__v": 0, "__sv": { "$exists": false },
                    "email": { "$exists": false }, "name": { "$exists": false },
                    "mail": { "$eq": &mail }, "full_name": { "$eq": &full },
                },
                doc! {
                    "$set": { "email": &mail, "name": name.clone(), "__sv": 2 },
                    "$unset": { "mail": "", "full_name": "" },
                    "$inc": { "__v": 1 },
                },
            )),
            1 => Some((
                doc! {
                    "_id": id, "__v": 0, "__sv": 1,
                    "name": { "$exists": false }, "full_name": { "$eq": &full },
                },
                doc! {
                    "$set": { "name": name.clone(), "__sv": 2 },
                    "$unset": { "full_name": "" },
                    "$inc": { "__v": 1 },
                },
            )),
            _ => None,
        };
        assert_eq!(user.changes(), expected, "version {at}");
        m.monitor.clear();
        user.save().await.unwrap();
        let updates = m.monitor.named("update");
        match &expected {
            Some((filter, update)) => {
                assert_eq!(updates.len(), 1, "one update");
                let sent = &updates[0].command.get_array("updates").unwrap()[0];
                let sent = sent.as_document().unwrap();
                assert_eq!(sent.get_document("q").unwrap(), filter);
                assert_eq!(sent.get_document("u").unwrap(), update);
                assert_eq!(user.version(), Some(1));
            }
            // Nothing to write at the model's version: a check at most.
            None => assert!(updates.is_empty()),
        }
        assert_eq!(user.migrated_from(), None);
        assert_eq!(user.schema_version(), Some(2));
        let now = stored(&users, *id).await;
        assert_eq!(now.get("__sv"), Some(&Bson::Int32(2)));
        assert!(!now.contains_key("mail") && !now.contains_key("full_name"));
        same_as_stored(&user, &now);
        // Saved: nothing left to write.
        assert_eq!(user.changes(), None);
    }
    m.finish().await;
}

#[tokio::test]
async fn an_upgrade_without_other_changes_writes_at_least_the_version() {
    let m = Monitored::new("schema-no-change").await;
    // A step that changes nothing the value sees: only the version moves.
    #[derive(Debug, Clone, serde::Serialize, serde::Deserialize, Document)]
    #[odm(collection = "plain", schema_version = 1, migrate = Self::noop, versioning = false)]
    struct Plain {
        #[serde(rename = "_id")]
        id: i32,
        a: i32,
    }
    impl Plain {
        fn noop(_: &mut BsonDocument, _: u32) -> Result<(), MigrationError> {
            Ok(())
        }
    }
    let plain = Plain::model(m.db());
    plain
        .collection()
        .insert_one(doc! { "_id": 1, "a": 1 })
        .await
        .unwrap();
    let mut doc = plain.find_by_id(1).await.unwrap().unwrap();
    assert_eq!(doc.migrated_from(), Some(0));
    assert_eq!(
        doc.changes(),
        Some((
            doc! { "_id": 1, "__sv": { "$exists": false } },
            doc! { "$set": { "__sv": 1 } }
        ))
    );
    doc.save().await.unwrap();
    assert_eq!(
        common::stored(&plain, 1).await,
        doc! { "_id": 1, "a": 1, "__sv": 1 }
    );
    m.finish().await;
}

#[tokio::test]
async fn an_edit_and_the_upgrade_go_out_in_one_save() {
    let (m, users, ids) = seeded("schema-edit", &[0]).await;
    let mut user = users.find_by_id(ids[0]).await.unwrap().unwrap();
    user.name.first = "Ann".into();
    user.visits += 5;
    let (_, update) = user.changes().unwrap();
    assert_eq!(
        update,
        doc! {
            "$set": {
                "email": "u0@x.io",
                "name": { "first": "Ann", "last": "Last0" },
                "visits": 5_i64,
                "__sv": 2,
            },
            "$unset": { "mail": "", "full_name": "" },
            "$inc": { "__v": 1 },
        }
    );
    assert_eq!(
        user.modified_paths(),
        ["email", "name", "mail", "full_name", "visits"]
    );
    user.save().await.unwrap();
    same_as_stored(&user, &stored(&users, ids[0]).await);
    // The next change is an ordinary one.
    user.visits += 1;
    let (filter, update) = user.changes().unwrap();
    assert_eq!(filter, doc! { "_id": ids[0], "__sv": 2 });
    assert_eq!(update, doc! { "$set": { "visits": 6_i64 } });
    user.save().await.unwrap();
    same_as_stored(&user, &stored(&users, ids[0]).await);
    m.finish().await;
}

#[tokio::test]
async fn of_two_copies_upgrading_one_document_one_lands_the_other_is_a_version_error() {
    let (m, users, ids) = seeded("schema-two-copies", &[0]).await;
    let id = ids[0];
    let mut a = users.find_by_id(id).await.unwrap().unwrap();
    let mut b = users.find_by_id(id).await.unwrap().unwrap();
    a.visits = 10;
    b.name.last = "Changed".into();
    a.save().await.unwrap();
    m.monitor.clear();
    let Err(Error::Version(e)) = b.save().await else {
        panic!("the second upgrade landed")
    };
    assert_eq!(e.version, 0);
    // Nothing of B written: A's save stands.
    let now = stored(&users, id).await;
    same_as_stored(&a, &now);
    // B keeps its change; reloaded, it is at version 2 and saves on top.
    assert_eq!(b.name.last, "Changed");
    assert_eq!(b.migrated_from(), Some(0));
    b.reload().await.unwrap();
    assert_eq!(b.migrated_from(), None);
    b.name.last = "Changed".into();
    b.save().await.unwrap();
    let now = stored(&users, id).await;
    same_as_stored(&b, &now);
    assert_eq!(b.visits, 10);
    m.finish().await;
}

/// Many documents, two tasks upgrading each at once with different edits:
/// exactly one write lands per document, the other fails with
/// `Error::Version` and writes nothing; the stored document holds the
/// winner's edit and is at version 2.
#[tokio::test]
async fn racing_upgrades_land_once_and_lose_nothing() {
    const DOCS: usize = 30;
    let (m, users, ids) = seeded("schema-race", &[0; DOCS]).await;
    for id in &ids {
        let race = Race::new(2);
        let (ra, rb) = (race.clone(), race);
        let (ua, ub) = (users.clone(), users.clone());
        let (ia, ib) = (*id, *id);
        let a = tokio::spawn(async move {
            let mut a = ua.find_by_id(ia).await.unwrap().unwrap();
            a.visits = 100;
            ra.run(a.save().into_future()).await.map(|()| a)
        });
        let b = tokio::spawn(async move {
            let mut b = ub.find_by_id(ib).await.unwrap().unwrap();
            b.visits = 200;
            rb.run(b.save().into_future()).await.map(|()| b)
        });
        let (a, b) = (a.await.unwrap(), b.await.unwrap());
        let winner = match (a, b) {
            (Ok(w), Err(Error::Version(_))) | (Err(Error::Version(_)), Ok(w)) => w,
            (a, b) => panic!("not exactly one landed: {:?} / {:?}", a.err(), b.err()),
        };
        let now = stored(&users, *id).await;
        same_as_stored(&winner, &now);
        assert_eq!(now.get("__sv"), Some(&Bson::Int32(2)));
        assert_eq!(now.get("__v"), Some(&Bson::Int32(1)));
    }
    m.finish().await;
}

/// A model declared by a `macro_rules!`, its `migrate` function passed in.
macro_rules! model_with_step {
    ($name:ident, $step:ident) => {
        #[derive(Debug, Clone, serde::Serialize, serde::Deserialize, Document)]
        #[odm(collection = "from_a_macro", schema_version = 1, migrate = $step)]
        struct $name {
            #[serde(rename = "_id")]
            id: i32,
            email: String,
        }
    };
}

/// The one step of [`FromMacro`]: `mail` renamed to `email`.
fn rename_mail(doc: &mut BsonDocument, _: u32) -> Result<(), MigrationError> {
    if let Some(mail) = doc.remove("mail") {
        doc.insert("email", mail);
    }
    Ok(())
}

model_with_step!(FromMacro, rename_mail);

#[tokio::test]
async fn a_model_declared_by_a_macro_runs_its_step() {
    // The derive's call of the step names it as the macro's expansion
    // does (hygiene): this compiles, and the step runs on load.
    let m = Monitored::new("schema-macro").await;
    let models = FromMacro::model(m.db());
    models
        .collection()
        .insert_one(doc! { "_id": 1, "mail": "a@example.com" })
        .await
        .unwrap();
    let doc = models.find_by_id(1).await.unwrap().unwrap();
    assert_eq!(doc.migrated_from(), Some(0));
    assert_eq!(doc.email, "a@example.com");
    m.finish().await;
}
