//! Schema versions (issue 31): every read that builds a `T` upgrades an
//! older document first (find, find_one, find_by_id, streams, lean and
//! projected reads, pages, hydrate, reload, update_with_retry, change
//! stream full documents); a failing step is `Error::Migration` naming the
//! document and the step, and writes nothing; a step that leaves the
//! document unloadable names the field; the schema key is hidden from the
//! value like the version key.

use crate::common;
use crate::schema_support;

use futures_util::{StreamExt, TryStreamExt};
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use schema_support::{stored_at, Name, User};
use serde::{Deserialize, Serialize};

/// What a list shows of a user: a projection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
#[serde(deny_unknown_fields)]
struct Card {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: Name,
}

async fn seeded(label: &str, versions: &[u32]) -> (common::Monitored, Model<User>, Vec<ObjectId>) {
    let m = common::Monitored::new(label).await;
    let users = User::model(m.db());
    let mut ids = Vec::new();
    for (n, version) in versions.iter().enumerate() {
        // Ascending ids in the order given.
        let id = ObjectId::from_bytes([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n as u8 + 1]);
        let stored = stored_at(*version, id, n as i64);
        users.collection().insert_one(stored).await.unwrap();
        ids.push(id);
    }
    (m, users, ids)
}

fn name(n: usize) -> Name {
    Name {
        first: format!("First{n}"),
        last: format!("Last{n}"),
    }
}

#[tokio::test]
async fn every_kind_of_read_upgrades_an_older_document() {
    let (m, users, ids) = seeded("schema-reads", &[0, 1, 2, 0]).await;
    let names: Vec<Name> = (0..4).map(name).collect();
    let by_id = doc! { "_id": 1 };

    let found = users.find(doc! {}).sort(by_id.clone()).await.unwrap();
    let got: Vec<(Name, Option<u32>)> = found
        .iter()
        .map(|u| (u.name.clone(), u.migrated_from()))
        .collect();
    let froms = [Some(0), Some(1), None, Some(0)];
    let want: Vec<(Name, Option<u32>)> = names.iter().cloned().zip(froms).collect();
    assert_eq!(got, want);

    let one = users
        .find_one(doc! { "_id": ids[0] })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (one.email.as_str(), one.migrated_from()),
        ("u0@x.io", Some(0))
    );

    let streamed: Vec<Doc<User>> = users
        .find(doc! {})
        .sort(by_id.clone())
        .batch_size(2)
        .stream()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        streamed.iter().map(|u| u.name.clone()).collect::<Vec<_>>(),
        names
    );

    let lean: Vec<User> = users
        .find(doc! {})
        .sort(by_id.clone())
        .lean()
        .await
        .unwrap();
    assert_eq!(
        lean.iter().map(|u| u.name.clone()).collect::<Vec<_>>(),
        names
    );
    let lean_one: User = users.find_by_id(ids[1]).lean().await.unwrap().unwrap();
    assert_eq!(lean_one.name, names[1]);

    // A projection of an older document needs the fields it had: the
    // whole document comes back for it (and only for it), is upgraded,
    // then cut to the projection's fields.
    m.monitor.clear();
    let cards: Vec<Card> = users
        .find(doc! {})
        .sort(by_id.clone())
        .projection::<Card>()
        .await
        .unwrap();
    let want: Vec<Card> = ids
        .iter()
        .zip(&names)
        .map(|(id, name)| Card {
            id: *id,
            name: name.clone(),
        })
        .collect();
    assert_eq!(cards, want);
    let card: Card = users
        .find_by_id(ids[0])
        .projection::<Card>()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(card, want[0]);

    let page = users.find(doc! {}).paginate(3).await.unwrap();
    assert_eq!(
        page.items
            .iter()
            .map(|u| u.name.clone())
            .collect::<Vec<_>>(),
        names[..3]
    );
    let after = page.next.clone().unwrap();
    let rest = users
        .find(doc! {})
        .paginate(3)
        .after(Some(after.as_str()))
        .await
        .unwrap();
    assert_eq!(rest.items[0].name, names[3]);
    let lean_page = users.find(doc! {}).lean().paginate(4).await.unwrap();
    assert_eq!(
        lean_page
            .items
            .iter()
            .map(|u| u.name.clone())
            .collect::<Vec<_>>(),
        names
    );
    let card_page = users
        .find(doc! {})
        .projection::<Card>()
        .paginate(4)
        .await
        .unwrap();
    assert_eq!(card_page.items, want);

    // Tracked by other means.
    let raw = odm::bson::RawDocumentBuf::try_from(&common::stored(&users, ids[0]).await).unwrap();
    let hydrated = users.hydrate(&raw).unwrap();
    assert_eq!(
        (hydrated.name.clone(), hydrated.migrated_from()),
        (names[0].clone(), Some(0))
    );

    // A reload reads (and upgrades) again.
    let mut copy = users.find_by_id(ids[3]).await.unwrap().unwrap();
    copy.name.first = "Gone".into();
    copy.reload().await.unwrap();
    assert_eq!(
        (copy.name.clone(), copy.migrated_from()),
        (names[3].clone(), Some(0))
    );

    // update_with_retry loads, applies, and saves the upgrade with it.
    let done = users
        .update_with_retry(ids[3], 3, |u: &mut User| {
            u.visits += 1;
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(done.migrated_from(), None);
    let stored = common::stored(&users, ids[3]).await;
    assert_eq!(stored.get("__sv"), Some(&Bson::Int32(2)));
    assert_eq!(stored.get("visits"), Some(&Bson::Int64(4)));
    m.finish().await;
}

#[tokio::test]
async fn change_stream_full_documents_are_upgraded() {
    let (m, users, _) = seeded("schema-watch", &[2]).await;
    let mut stream = users
        .watch()
        .max_await_time(std::time::Duration::from_millis(100))
        .await
        .unwrap();
    let id = ObjectId::new();
    users
        .collection()
        .insert_one(stored_at(0, id, 7))
        .await
        .unwrap();
    let next = tokio::time::timeout(std::time::Duration::from_secs(10), stream.try_next());
    let event = next
        .await
        .expect("an event within 10 s")
        .unwrap()
        .expect("open");
    let user = event.full_document.expect("the inserted document");
    assert_eq!((user.id, user.name), (id, name(7)));
    assert_eq!(user.email, "u7@x.io");
    // The client's shutdown waits for the stream's cursor.
    drop(stream);
    m.finish().await;
}

#[tokio::test]
async fn a_failing_step_names_the_document_and_the_step_and_writes_nothing() {
    let (m, users, ids) = seeded("schema-step-fails", &[2, 2]).await;
    let bad = ObjectId::new();
    let no_mail = doc! { "_id": bad, "full_name": "A B", "__v": 0 };
    users
        .collection()
        .insert_one(no_mail.clone())
        .await
        .unwrap();
    m.monitor.clear();
    let Err(Error::Migration(e)) = users.find_by_id(bad).await else {
        panic!("loaded")
    };
    assert_eq!(
        (e.id(), e.from(), e.message()),
        (&Bson::ObjectId(bad), 0, "no `mail`")
    );
    assert_eq!(e.collection(), users.name());
    assert_eq!(
        e.to_string(),
        format!(
            "cannot upgrade document \"{}\" of collection \"{}\" from schema version 0 to 1: no `mail`; nothing was written",
            bad.to_hex(),
            users.name()
        )
    );
    assert!(m.monitor.writes().is_empty());
    assert_eq!(common::stored(&users, bad).await, no_mail);
    // A scan goes on past it: one error item, the others loaded.
    let items: Vec<odm::Result<Doc<User>>> = users
        .find(doc! {})
        .stream()
        .await
        .unwrap()
        .collect::<Vec<_>>()
        .await;
    assert_eq!(items.iter().filter(|i| i.is_ok()).count(), ids.len());
    assert!(matches!(
        items.iter().find(|i| i.is_err()),
        Some(Err(Error::Migration(_)))
    ));
    // A lean read reports it the same way.
    let lean = users.find_by_id(bad).lean().await;
    assert!(matches!(lean, Err(Error::Migration(ref e)) if e.from() == 0));
    m.finish().await;
}

#[tokio::test]
async fn a_step_that_leaves_the_document_unloadable_names_the_field() {
    let (m, users, _) = seeded("schema-unloadable", &[]).await;
    let id = ObjectId::new();
    // Version 1 without `full_name`: step 1 leaves it without `name`.
    let stored = doc! { "_id": id, "email": "a@b.c", "__sv": 1 };
    users.collection().insert_one(stored).await.unwrap();
    let Err(Error::Deserialize(e)) = users.find_by_id(id).await else {
        panic!("loaded")
    };
    assert_eq!((e.id(), e.path()), (&Bson::ObjectId(id), "name"));
    assert!(
        e.message()
            .starts_with("after the upgrade from schema version 1: missing field"),
        "{e}"
    );
    // A malformed schema version names its key.
    let bad = ObjectId::new();
    users
        .collection()
        .insert_one(doc! { "_id": bad, "email": "x", "__sv": "two" })
        .await
        .unwrap();
    let Err(Error::Deserialize(e)) = users.find_by_id(bad).await else {
        panic!("loaded")
    };
    assert_eq!(e.path(), "__sv");
    m.finish().await;
}

/// Models that see every stored field refuse or collect unknown ones: the
/// schema key (renamed here) is odm's, hidden from them like `__v`.
#[tokio::test]
async fn the_schema_key_is_hidden_from_strict_and_catch_all_models() {
    #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    #[odm(collection = "strict", schema_version = 3, migrate = Self::up, schema_key = "rev")]
    #[serde(deny_unknown_fields)]
    struct Strict {
        #[serde(rename = "_id")]
        id: i32,
        n: i32,
    }
    impl Strict {
        fn up(doc: &mut BsonDocument, from: u32) -> Result<(), MigrationError> {
            let n = doc.get_i32("n").unwrap_or(0);
            doc.insert("n", n * 10 + from as i32);
            Ok(())
        }
    }
    #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    #[odm(collection = "strict", schema_version = 3, migrate = Strict::up, schema_key = "rev")]
    struct CatchAll {
        #[serde(rename = "_id")]
        id: i32,
        #[serde(flatten)]
        rest: BsonDocument,
    }
    let m = common::Monitored::new("schema-hidden").await;
    let strict = Strict::model(m.db());
    let created = strict.create(Strict { id: 1, n: 5 }).await.unwrap();
    assert_eq!(created.schema_version(), Some(3));
    assert_eq!(
        common::stored(&strict, 1).await,
        doc! { "_id": 1, "n": 5, "__v": 0, "rev": 3 }
    );
    strict
        .collection()
        .insert_one(doc! { "_id": 2, "n": 1, "rev": 1, "__v": 4 })
        .await
        .unwrap();
    // Steps 1 and 2 ran: 1 -> 11 -> 112.
    let two = strict.find_by_id(2).await.unwrap().unwrap();
    assert_eq!(
        (two.n, two.migrated_from(), two.version()),
        (112, Some(1), Some(4))
    );
    let all = CatchAll::model(m.db())
        .find_by_id(1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(all.rest, doc! { "n": 5 });
    m.finish().await;
}
