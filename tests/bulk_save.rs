//! `Model::bulk_save` against the server: one bulk write per batch, one
//! outcome per `Doc` (each as `save()` gives it), committed only where the
//! write landed, refused before sending when the batch is bad. Each test
//! runs both ways a batch can go: the `bulkWrite` command, and the
//! `insert` / `update` commands of servers older than MongoDB 8.0.

use crate::both_paths;
use crate::common;

use common::Monitored;
use mongodb::bson::{Bson, Document as BsonDocument};
use odm::__private::BulkPath;
use odm::prelude::*;
use odm::{BatchRefusal, DuplicateKeyError};
use serde::{Deserialize, Serialize};

/// Every change checks and bumps the version; `email` is unique; `score`
/// is validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", optimistic_concurrency)]
struct Account {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(unique)]
    email: String,
    #[odm(min = 0)]
    score: i32,
    tags: Vec<String>,
}

fn account(n: usize) -> Account {
    Account {
        id: ObjectId::new(),
        email: format!("user{n}@example.com"),
        score: 0,
        tags: vec![],
    }
}

/// Default (array) versioning: a `$set` of a scalar checks nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "notes", timestamps)]
#[serde(rename_all = "camelCase")]
struct Note {
    #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
    id: Option<ObjectId>,
    text: String,
    tags: Vec<String>,
    created_at: Option<odm::bson::DateTime>,
    updated_at: Option<odm::bson::DateTime>,
}

fn note(text: &str) -> Note {
    Note {
        id: None,
        text: text.into(),
        tags: vec![],
        created_at: None,
        updated_at: None,
    }
}

/// `value` as stored at version `v`.
fn at_version<T: Serialize>(value: &T, v: i64) -> BsonDocument {
    let mut d = common::bson::to_document(value).unwrap();
    d.insert("__v", v as i32);
    d
}

/// Every stored document of `model`, by `_id`.
async fn all_stored<T: odm::Document>(
    model: &Model<T>,
) -> std::collections::HashMap<ObjectId, BsonDocument> {
    use futures_util::TryStreamExt;
    let docs: Vec<BsonDocument> = model
        .collection()
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    docs.into_iter()
        .map(|d| (d.get_object_id("_id").unwrap(), d))
        .collect()
}

both_paths!(
    a_thousand_docs_with_120_bad_ones,
    a_copy_loaded_before_a_bulk_save_is_stale,
    new_and_loaded_docs_mixed,
    bad_batches_are_refused_before_sending,
    inside_a_transaction,
);

/// 1,000 loaded `Doc`s changed, of which 100 are stale (another writer
/// bumped them), 10 take an email another document holds and 10 fail
/// validation: exactly those 120 fail, each with its own error, and the
/// 880 others are stored and committed, in one bulk write.
async fn a_thousand_docs_with_120_bad_ones(path: BulkPath) {
    let m = Monitored::new(&format!("bulk_1000_{path:?}")).await;
    let accounts = Account::model(m.db());
    accounts.sync_indexes().await.unwrap();
    let created = accounts
        .insert_many((0..1000).map(account))
        .path(path)
        .await
        .unwrap();
    assert!(created.iter().all(Result::is_ok));
    for n in 0..10 {
        accounts.create(account(5000 + n)).await.unwrap();
    }
    let mut docs = accounts
        .find(doc! { "score": 0, "email": { "$regex": "^user[0-9]{1,3}@" } })
        .await
        .unwrap();
    docs.sort_by_key(|d| {
        d.email
            .trim_start_matches("user")
            .split('@')
            .next()
            .unwrap()
            .parse::<usize>()
            .unwrap()
    });
    assert_eq!(docs.len(), 1000);

    let mut pending = Vec::new();
    for (i, doc) in docs.iter_mut().enumerate() {
        doc.score = 1 + i as i32;
        doc.tags.push(format!("t{i}"));
        match i % 100 {
            1 => doc.email = format!("user{}@example.com", 5000 + i / 100),
            2 => doc.score = -1,
            _ => {}
        }
        if i % 10 == 0 {
            // Another writer moved the stored version on.
            accounts
                .collection()
                .update_one(doc! { "_id": doc.id }, doc! { "$inc": { "__v": 1 } })
                .await
                .unwrap();
        }
        pending.push(doc.changes());
    }
    let before = all_stored(&accounts).await;

    m.monitor.clear();
    let outcomes = accounts.bulk_save(&mut docs).path(path).await.unwrap();
    // One write; the commands' count needs one read to tell the 100
    // stale Docs from the 880 others.
    assert_eq!(
        m.monitor.started(common::bulk_paths::update_command(path)),
        1,
        "one round trip"
    );
    let others = ["bulkWrite", "update", "insert"].iter();
    let others: usize = others.map(|c| m.monitor.started(c)).sum();
    assert_eq!(others, 1, "no other write");
    // The commands' count needs one read (of whole documents), which also
    // tells the stale Docs' stored changes; bulkWrite's answer needs none,
    // and the stale Docs' stored changes take one.
    assert_eq!(m.monitor.started("find"), 1);
    assert_eq!(outcomes.len(), 1000);

    let stored = all_stored(&accounts).await;
    let (mut ok, mut stale, mut taken, mut invalid) = (0, 0, 0, 0);
    for (i, (doc, outcome)) in docs.iter().zip(&outcomes).enumerate() {
        let now = &stored[&doc.id];
        match (i % 10 == 0, i % 100, outcome) {
            (true, _, Err(Error::Version(e))) => {
                stale += 1;
                assert_eq!(e.id, Bson::ObjectId(doc.id));
                assert_eq!(e.version, 0);
            }
            (false, 1, Err(Error::DuplicateKey(e))) => {
                taken += 1;
                assert_eq!(e.index.as_deref(), Some("email_1"), "{e}");
                assert_eq!(e.collection, accounts.name());
            }
            (false, 2, Err(Error::Validation(e))) => {
                invalid += 1;
                assert_eq!(e.errors()[0].path(), "score", "{e}");
            }
            (false, _, Ok(())) => {
                ok += 1;
                assert_eq!(doc.version(), Some(1));
                assert_eq!(doc.changes(), None, "committed");
                assert_eq!(now, &at_version(&**doc, 1), "stored == memory");
                continue;
            }
            other => panic!("Doc {i}: unexpected {other:?}"),
        }
        // A Doc whose write did not land keeps its changes and version,
        // and the stored document is untouched.
        assert_eq!(doc.changes(), pending[i], "Doc {i} keeps its changes");
        assert_eq!(doc.version(), Some(0));
        assert_eq!(now, &before[&doc.id], "Doc {i} not written");
    }
    assert_eq!((ok, stale, taken, invalid), (880, 100, 10, 10));
    let saved = accounts
        .count(doc! { "score": { "$gt": 0 }, "__v": 1, "tags.0": { "$exists": true } })
        .await
        .unwrap();
    assert_eq!(saved, 880, "counted against the server");
    m.finish().await;
}

/// A copy loaded before a bulk save that changed the document, saved after
/// it under optimistic_concurrency, fails with `Error::Version`; the stored
/// document keeps the bulk save's write.
async fn a_copy_loaded_before_a_bulk_save_is_stale(path: BulkPath) {
    let m = Monitored::new(&format!("bulk_two_copies_{path:?}")).await;
    let accounts = Account::model(m.db());
    let value = account(1);
    accounts.create(value.clone()).await.unwrap();
    let mut other = accounts.find_by_id(value.id).await.unwrap().unwrap();
    let mut docs = vec![accounts.find_by_id(value.id).await.unwrap().unwrap()];
    docs[0].score = 7;
    let outcomes = accounts.bulk_save(&mut docs).path(path).await.unwrap();
    assert!(outcomes[0].is_ok());
    let written = at_version(&*docs[0], 1);

    other.score = 9;
    match other.save().await {
        Err(Error::Version(e)) => assert_eq!(
            e.to_string(),
            format!(
                "No matching document found for id \"{}\" version 0 modifiedPaths \"score\"",
                value.id.to_hex()
            )
        ),
        got => panic!("expected a version error, got {got:?}"),
    }
    assert_eq!(common::stored(&accounts, value.id).await, written);
    m.finish().await;
}

/// New and loaded Docs in one batch: inserts get ids and timestamps, a
/// loaded Doc with nothing to change is checked, a deleted document is
/// not found, and each outcome is the one `save()` gives.
async fn new_and_loaded_docs_mixed(path: BulkPath) {
    let m = Monitored::new(&format!("bulk_mixed_{path:?}")).await;
    let notes = Note::model(m.db());
    let mut first = notes.new_doc(note("kept"));
    first.save().await.unwrap();
    let mut gone = notes.new_doc(note("gone"));
    gone.save().await.unwrap();
    let mut unchanged_gone = notes.new_doc(note("unchanged, gone"));
    unchanged_gone.save().await.unwrap();
    let mut unchanged = notes.new_doc(note("unchanged"));
    unchanged.save().await.unwrap();
    for id in [gone.id, unchanged_gone.id] {
        notes
            .collection()
            .delete_one(doc! { "_id": id })
            .await
            .unwrap();
    }

    first.text = "edited".into();
    first.tags.push("x".into());
    gone.text = "edited".into();
    let mut docs = vec![
        notes.new_doc(note("new one")),
        first,
        gone,
        unchanged_gone,
        unchanged,
        notes.new_doc(note("new two")),
    ];
    m.monitor.clear();
    let outcomes = notes.bulk_save(&mut docs).path(path).await.unwrap();
    // One write (the commands: one insert, one update), and one read
    // settles the Docs that had nothing to write (and, for the commands,
    // which update matched).
    match path {
        BulkPath::Commands => {
            assert_eq!(m.monitor.started("insert"), 1);
            assert_eq!(m.monitor.started("update"), 1);
        }
        _ => assert_eq!(m.monitor.started("bulkWrite"), 1),
    }
    assert_eq!(m.monitor.started("find"), 1);
    assert!(
        outcomes[0].is_ok() && outcomes[1].is_ok() && outcomes[4].is_ok() && outcomes[5].is_ok(),
        "{outcomes:?}"
    );
    for i in [2, 3] {
        match &outcomes[i] {
            Err(Error::NotFound(e)) => {
                assert_eq!(e.filter, doc! { "_id": docs[i].id.unwrap() }, "{e}")
            }
            other => panic!("Doc {i}: expected not found, got {other:?}"),
        }
    }
    for i in [0, 5] {
        let doc = &docs[i];
        assert!(
            !doc.is_new() && doc.id.is_some(),
            "an id generated before sending"
        );
        assert_eq!(doc.version(), Some(0));
        assert!(doc.created_at.is_some() && doc.updated_at.is_some());
        assert_eq!(
            common::stored(&notes, doc.id.unwrap()).await,
            at_version(&**doc, 0)
        );
    }
    assert_eq!(docs[1].version(), Some(1), "a push bumps");
    assert_eq!(
        common::stored(&notes, docs[1].id.unwrap()).await,
        at_version(&*docs[1], 1)
    );
    assert!(docs[2].changes().is_some(), "not found keeps its changes");
    assert_eq!(notes.count(doc! {}).await.unwrap(), 4);
    m.finish().await;
}

/// A `_id` given twice, or a `Doc` of another collection, refuses the
/// whole batch before anything is sent; an empty batch sends nothing.
async fn bad_batches_are_refused_before_sending(path: BulkPath) {
    let m = Monitored::new(&format!("bulk_refused_{path:?}")).await;
    let accounts = Account::model(m.db());
    let value = account(1);
    accounts.create(value.clone()).await.unwrap();
    let (mut a, mut b) = common::two_copies(&accounts, value.id).await;
    a.score = 1;
    b.score = 2;
    let mut docs = vec![accounts.new_doc(account(2)), a, b];
    m.monitor.clear();
    match accounts.bulk_save(&mut docs).path(path).await {
        Err(Error::Batch(e)) => {
            assert_eq!(e.position, 2);
            assert_eq!(e.reason, BatchRefusal::Repeated { first: 1 });
            assert_eq!(e.id, Some(Bson::ObjectId(value.id)));
        }
        other => panic!("expected a refused batch, got {other:?}"),
    }
    assert!(
        m.monitor.all().is_empty(),
        "nothing sent: {:?}",
        m.monitor.all()
    );
    assert!(docs[0].is_new() && docs[1].changes().is_some());

    // The same value given twice to insert_many.
    let twice = account(3);
    let refused = accounts
        .insert_many([twice.clone(), account(4), twice])
        .path(path)
        .await;
    assert!(
        matches!(refused, Err(Error::Batch(e)) if e.reason == BatchRefusal::Repeated { first: 0 })
    );

    let elsewhere = Account::model(&m.client().database(&format!("{}_other", m.db().name())));
    let mut docs = vec![accounts.new_doc(account(5)), elsewhere.new_doc(account(6))];
    match accounts.bulk_save(&mut docs).path(path).await {
        Err(Error::Batch(e)) => {
            assert_eq!(e.position, 1);
            assert!(
                matches!(e.reason, BatchRefusal::OtherCollection { .. }),
                "{e}"
            );
        }
        other => panic!("expected a refused batch, got {other:?}"),
    }
    assert!(m.monitor.all().is_empty(), "nothing sent");

    let none: &mut [Doc<Account>] = &mut [];
    assert!(accounts
        .bulk_save(none)
        .path(path)
        .await
        .unwrap()
        .is_empty());
    assert!(accounts
        .insert_many([])
        .path(path)
        .await
        .unwrap()
        .is_empty());
    assert!(m.monitor.all().is_empty(), "an empty batch sends nothing");
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 1);
    m.finish().await;
}

/// Inside a session's transaction: committed with it.
async fn inside_a_transaction(path: BulkPath) {
    let m = Monitored::new(&format!("bulk_session_{path:?}")).await;
    let accounts = Account::model(m.db());
    accounts.create(account(0)).await.unwrap();
    let mut session = m.client().start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    let mut docs: Vec<_> = (1..4).map(|n| accounts.new_doc(account(n))).collect();
    let outcomes = accounts
        .bulk_save(&mut docs)
        .path(path)
        .session(&mut session)
        .await
        .unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    let inserted = accounts
        .insert_many([account(4)])
        .session(&mut session)
        .path(path)
        .await
        .unwrap();
    assert!(inserted[0].is_ok());
    session.commit_transaction().await.unwrap();
    // The server keeps the session's locks until it ends.
    drop(session);
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 5);
    m.finish().await;
}

#[allow(dead_code)]
fn _duplicate_key_is_public(e: DuplicateKeyError) -> Option<String> {
    e.index
}
