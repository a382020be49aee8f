//! One classification of errors: a duplicate key is `Error::DuplicateKey`
//! whichever way it reached the user (odm's own operations, or `?` on a
//! raw driver call), every payload is a `std::error::Error` whose source
//! reaches the driver's error, and every message reads as a sentence.
//! Plus: a value that does not serialize never panics a public method.

use crate::common;

use std::collections::BTreeMap;
use std::error::Error as _;

use mongodb::bson::{doc, Bson};
use mongodb::error::{ErrorKind, WriteFailure};
use mongodb::options::InsertOneModel;
use odm::prelude::*;
use odm::{DuplicateKeyError, IndexError};
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(unique)]
    email: String,
    #[serde(default)]
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
enum Kind {
    #[default]
    Member,
    Admin,
}

fn user(email: &str) -> User {
    User {
        id: ObjectId::new(),
        email: email.into(),
        kind: Kind::Member,
    }
}

fn duplicate<T: std::fmt::Debug>(result: odm::Result<T>) -> DuplicateKeyError {
    match result {
        Err(Error::DuplicateKey(e)) => *e,
        other => panic!("expected Error::DuplicateKey, got {other:?}"),
    }
}

/// The driver error at the end of `e`'s source chain.
fn driver_source<'a>(e: &'a (dyn std::error::Error + 'static)) -> &'a mongodb::error::Error {
    let mut at = e.source();
    while let Some(e) = at {
        if let Some(driver) = e.downcast_ref::<mongodb::error::Error>() {
            return driver;
        }
        at = e.source();
    }
    panic!("no driver error in the source chain of {e}")
}

/// The text of a duplicate `a@b.c`: its value hidden, as by default.
const TAKEN: &str = "duplicate key in collection \"users\" on index \"email_1\": { email: ? }";

/// The same, with values shown.
const TAKEN_SHOWN: &str =
    "duplicate key in collection \"users\" on index \"email_1\": { email: \"a@b.c\" }";

#[tokio::test]
async fn a_raw_driver_duplicate_is_the_same_error_as_odms() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    users.sync_indexes().await.unwrap();
    users.create(user("a@b.c")).await.unwrap();

    let via_odm = duplicate(users.create(user("a@b.c")).await);
    let raw = users
        .collection()
        .insert_one(doc! { "_id": ObjectId::new(), "email": "a@b.c" })
        .await
        .unwrap_err();
    let via_driver = duplicate(Err::<(), _>(odm::Error::from(raw)));

    for e in [&via_odm, &via_driver] {
        assert_eq!(e.collection, "users");
        assert_eq!(e.index.as_deref(), Some("email_1"));
        assert_eq!(e.key.as_deref(), Some("{ email: \"a@b.c\" }"));
        assert_eq!(e.to_string(), TAKEN);
        assert_eq!(common::with_values(|| e.to_string()), TAKEN_SHOWN);
        // The source is the driver's error, code 11000.
        let driver = driver_source(e);
        assert!(
            matches!(&*driver.kind, ErrorKind::Write(WriteFailure::WriteError(w)) if w.code == 11000),
            "{driver:?}"
        );
    }
    // odm knows what it inserted, so it adds the key pattern and value.
    assert_eq!(via_odm.key_pattern.as_deref(), Some(&doc! { "email": 1 }));
    assert_eq!(
        via_odm.key_value.as_deref(),
        Some(&doc! { "email": "a@b.c" })
    );

    // Through `odm::Error` itself: the same text, the same source.
    let e = odm::Error::DuplicateKey(Box::new(via_driver));
    assert_eq!(e.to_string(), TAKEN);
    driver_source(&e);
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_shape_of_duplicate_is_duplicate_key() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    users.sync_indexes().await.unwrap();
    users.create(user("a@b.c")).await.unwrap();
    let other = users.create(user("x@b.c")).await.unwrap();
    let raw = users.collection();
    let by_id = doc! { "_id": other.id };
    let take = doc! { "$set": { "email": "a@b.c" } };

    // A write error with the server's reply: key pattern and value too.
    let e = raw
        .update_one(by_id.clone(), take.clone())
        .await
        .unwrap_err();
    let updated = duplicate(Err::<(), _>(e.into()));
    // A command error (findAndModify), raw and through odm's claim.
    let e = raw
        .find_one_and_update(by_id.clone(), take.clone())
        .await
        .unwrap_err();
    let found_and_modified = duplicate(Err::<(), _>(e.into()));
    let claimed = duplicate(users.claim(by_id.clone(), take.clone()).await);
    for e in [&updated, &found_and_modified, &claimed] {
        assert_eq!(
            (e.collection.as_str(), e.index.as_deref(), e.key.as_deref()),
            ("users", Some("email_1"), Some("{ email: \"a@b.c\" }"))
        );
        assert_eq!(e.key_pattern.as_deref(), Some(&doc! { "email": 1 }));
        assert_eq!(e.key_value.as_deref(), Some(&doc! { "email": "a@b.c" }));
        assert_eq!(e.to_string(), TAKEN);
        driver_source(e);
    }

    // insert_many and a client bulk write: the first refused write.
    let e = raw
        .insert_many([doc! { "email": "new@b.c" }, doc! { "email": "a@b.c" }])
        .await
        .unwrap_err();
    assert!(matches!(&*e.kind, ErrorKind::InsertMany(_)), "{e:?}");
    let e = duplicate(Err::<(), _>(e.into()));
    assert_eq!(e.to_string(), TAKEN);
    let insert = InsertOneModel::builder()
        .namespace(raw.namespace())
        .document(doc! { "email": "a@b.c" })
        .build();
    let e = t.client.bulk_write(vec![insert]).await.unwrap_err();
    assert!(matches!(&*e.kind, ErrorKind::BulkWrite(_)), "{e:?}");
    let e = duplicate(Err::<(), _>(e.into()));
    assert_eq!(e.to_string(), TAKEN);

    // `?` on a driver call inside odm's transaction: the transaction
    // returns the same DuplicateKey, not a retry or a bare driver error.
    let result = odm::transaction(&t.client, (), |s, ()| {
        let raw = raw.clone();
        Box::pin(async move {
            raw.insert_one(doc! { "email": "a@b.c" }).session(s).await?;
            Ok(())
        })
    })
    .await;
    assert_eq!(duplicate(result).to_string(), TAKEN);
    assert_eq!(users.count(doc! {}).await.unwrap(), 3);
    t.finish().await;
}

#[tokio::test]
async fn a_driver_error_displays_the_servers_message_not_its_reply() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let created = users.create(user("a@b.c")).await.unwrap();
    let raw = users
        .collection()
        .update_one(doc! { "_id": created.id }, doc! { "$nope": { "a": 1 } })
        .await
        .unwrap_err();
    let ErrorKind::Write(WriteFailure::WriteError(w)) = &*raw.kind else {
        panic!("expected a write error, got {raw:?}");
    };
    let expected = format!(
        "the server refused the write: {} (code {})",
        w.message, w.code
    );
    // The driver's own text dumps the reply's bytes.
    assert!(raw.to_string().contains("RawDocumentBuf"), "{raw}");
    let e = odm::Error::from(raw.clone());
    assert!(matches!(e, Error::Driver(_)), "{e:?}");
    assert_eq!(e.to_string(), expected);
    assert!(e.source().unwrap().is::<mongodb::error::Error>());
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts")]
struct Account {
    #[serde(rename = "_id")]
    id: i32,
    #[odm(unique)]
    handle: String,
}

#[tokio::test]
async fn a_refused_index_reaches_the_driver_error() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let raw = accounts.collection();
    raw.insert_many([
        doc! { "_id": 1, "handle": "ann" },
        doc! { "_id": 2, "handle": "ann" },
    ])
    .await
    .unwrap();
    let e = accounts.sync_indexes().await.unwrap_err();
    let Error::Index(index) = &e else {
        panic!("expected Error::Index, got {e:?}");
    };
    let index: &IndexError = index;
    assert_eq!(index.index, "handle_1");
    assert_eq!(e.to_string(), index.to_string());
    let driver = driver_source(&e);
    assert!(
        matches!(&*driver.kind, ErrorKind::Command(c) if c.code == 11000),
        "{driver:?}"
    );
    t.finish().await;
}

#[tokio::test]
async fn deserialize_errors_name_the_document_and_the_field() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let cases = [
        (
            doc! { "email": 5 },
            "field \"email\": invalid type: integer ?, expected a string",
        ),
        (doc! {}, "field \"email\": missing field `email`"),
        (
            doc! { "email": "b", "kind": "Owner" },
            "field \"kind\": unknown variant ?, expected `Member` or `Admin`",
        ),
        (
            doc! { "email": "c", "kind": { "Admin": 1 } },
            "field \"kind\": expected a string enum, got a document instead",
        ),
    ];
    for (fields, expected) in cases {
        let id = ObjectId::new();
        let mut stored = doc! { "_id": id };
        stored.extend(fields);
        users.collection().insert_one(stored).await.unwrap();
        let e = users.find_by_id(id).await.unwrap_err();
        assert!(matches!(e, Error::Deserialize(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!(
                "cannot load document \"{}\" from collection \"users\": {expected}",
                id.to_hex()
            )
        );
        assert!(e.source().is_none());
    }
    t.finish().await;
}

#[test]
fn every_payload_is_a_std_error() {
    fn is_error<E: std::error::Error + Send + Sync + 'static>() {}
    is_error::<odm::VersionError>();
    is_error::<odm::NotFoundError>();
    is_error::<odm::ValidationErrors>();
    is_error::<odm::DuplicateKeyError>();
    is_error::<odm::IndexError>();
    is_error::<odm::DeserializeError>();
    is_error::<odm::LeaseLostError>();
    is_error::<odm::LeaseTimeoutError>();
    is_error::<odm::FencedError>();
    is_error::<odm::Error>();
}

/// A model whose values may not serialize: a `u64` above `i64::MAX`, a map
/// with non-string keys, a type whose `Serialize` refuses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "counters", optimistic_concurrency)]
struct Counter {
    #[serde(rename = "_id")]
    id: i32,
    hits: u64,
    #[serde(default)]
    cells: BTreeMap<(i32, i32), i32>,
    #[serde(default)]
    seal: Seal,
}

/// Serializes as `false`, or refuses to serialize once broken.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
struct Seal(bool);

impl Serialize for Seal {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 {
            return Err(serde::ser::Error::custom("the seal is broken"));
        }
        s.serialize_bool(false)
    }
}

/// A change that makes a `Counter` unserializable.
type Breaker = fn(&mut Counter);

#[tokio::test]
async fn a_value_that_does_not_serialize_is_an_error_never_a_panic() {
    let t = TestDb::new().await;
    let counters = Counter::model(&t.db);
    let stored = || async {
        counters
            .collection()
            .find_one(doc! { "_id": 1 })
            .await
            .unwrap()
    };
    let mut c = counters
        .create(Counter {
            id: 1,
            hits: 1,
            cells: BTreeMap::new(),
            seal: Seal(false),
        })
        .await
        .unwrap();
    let before = stored().await;

    let breakers: [(Breaker, &str); 3] = [
        (
            |c| c.hits = u64::MAX,
            "the unsigned integer ? is larger than BSON's largest integer \
             (9223372036854775807)",
        ),
        (
            |c| {
                c.cells.insert((1, 2), 3);
            },
            // bson names the key's kind: its BSON type (bson 2) or its
            // serde kind (bson 3).
            if cfg!(feature = "bson-3") {
                "a map key must serialize as a string, not as tuple"
            } else {
                "a map key must serialize as a string, not as Array"
            },
        ),
        (|c| c.seal = Seal(true), "the seal is broken"),
    ];
    for (breaker, why) in breakers {
        breaker(&mut c);
        // What the next save sends: nothing, since it cannot be sent.
        assert_eq!(c.changes(), None);
        assert_eq!(c.modified_paths(), Vec::<String>::new());
        assert!(matches!(c.try_changes(), Err(Error::Serialize(_))));
        let e = c.save().await.unwrap_err();
        assert!(matches!(e, Error::Serialize(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!("cannot serialize the document to BSON: {why}")
        );
        assert!(e.source().is_some());
        // Nothing was written, and the Doc keeps its value and version.
        assert_eq!(stored().await, before);
        assert_eq!(c.version(), Some(0));
        c.hits = 1;
        c.cells.clear();
        c.seal = Seal(false);
    }
    // Once it serializes again, the save goes through.
    c.hits = 2;
    assert_eq!(c.modified_paths(), ["hits"]);
    assert_eq!(
        c.try_changes().unwrap(),
        Some((
            doc! { "_id": 1, "__v": 0 },
            doc! { "$set": { "hits": 2_i64 }, "$inc": { "__v": 1 } }
        ))
    );
    c.save().await.unwrap();
    assert_eq!(stored().await.unwrap().get("hits"), Some(&Bson::Int64(2)));

    // A new document that does not serialize is not inserted.
    let mut fresh = counters.new_doc(Counter {
        id: 2,
        hits: u64::MAX,
        cells: BTreeMap::new(),
        seal: Seal(false),
    });
    assert_eq!((fresh.changes(), fresh.modified_paths()), (None, vec![]));
    assert!(matches!(fresh.save().await, Err(Error::Serialize(_))));
    assert!(fresh.is_new());
    assert_eq!(counters.count(doc! {}).await.unwrap(), 1);
    t.finish().await;
}

/// `labels()` and `is_transient()` read the server's labels through odm's
/// error: a write refused with a label the server attached (as a failover
/// or a write conflict does) is transient; a duplicate key is not.
#[tokio::test]
async fn labels_reach_the_user_without_downcasting() {
    let Some(m) = common::Monitored::with_fail_points("labels").await else {
        return;
    };
    let users = User::model(m.db());
    users.sync_indexes().await.unwrap();
    let fp = m
        .fail_with(
            &["insert"],
            1,
            doc! { "errorCode": 112, "errorLabels": ["TransientTransactionError"] },
        )
        .await;
    let e = users.create(user("t@b.c")).await.unwrap_err();
    fp.off().await;
    assert!(matches!(e, Error::Driver(_)), "{e:?}");
    assert_eq!(e.labels(), ["TransientTransactionError"]);
    assert!(e.has_label("TransientTransactionError"));
    assert!(e.is_transient());

    users.create(user("a@b.c")).await.unwrap();
    let e = users.create(user("a@b.c")).await.unwrap_err();
    assert!(matches!(e, Error::DuplicateKey(_)), "{e:?}");
    assert!(!e.is_transient(), "{:?}", e.labels());
    m.finish().await;
}
