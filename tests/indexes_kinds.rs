//! Index kinds against the server: TTL (`expire_after`), collation,
//! 2dsphere and wildcard indexes are created as declared, a re-sync is a
//! no-op, a changed option is reported without touching anything, and a
//! collation-unique index refuses a case variant. Text and hashed indexes
//! are created where the server has them; a server that lacks them
//! (SecantusDB) refuses them before any other index of the model exists.

use futures_util::TryStreamExt;
use mongodb::bson::{doc, Document as BsonDocument};
use mongodb::options::{Collation, IndexOptions};
use mongodb::IndexModel;
use odm::index::{IndexError, IndexErrorKind};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Point {
    r#type: String,
    coordinates: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "places",
    index(keys(loc = "2dsphere", kind = 1), name = "near"),
    index(wildcard(attrs))
)]
struct Place {
    #[serde(rename = "_id")]
    id: i64,
    /// Unique whatever the case: `Ada` and `ADA` collide.
    #[odm(unique, collation(locale = "en", strength = 2))]
    handle: String,
    /// Removed by the server an hour after this date.
    #[serde(rename = "seenAt")]
    #[odm(index, expire_after = 3600)]
    seen_at: mongodb::bson::DateTime,
    loc: Point,
    kind: String,
    attrs: BsonDocument,
}

fn place(id: i64, handle: &str) -> Place {
    Place {
        id,
        handle: handle.into(),
        seen_at: mongodb::bson::DateTime::now(),
        loc: Point {
            r#type: "Point".into(),
            coordinates: vec![10.75, 59.91],
        },
        kind: "cafe".into(),
        attrs: doc! { "wifi": true },
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "articles",
    index(
        keys(title = "text", body = "text"),
        weights(title = 10),
        default_language = "french",
        name = "search"
    ),
    index(keys(author = "hashed"))
)]
struct Article {
    #[serde(rename = "_id")]
    id: i64,
    title: String,
    body: String,
    author: String,
    #[odm(index)]
    published: i64,
}

const PLACE_INDEXES: [&str; 4] = ["handle_1", "seenAt_1", "near", "attrs.$**_1"];

/// `listIndexes`, sorted by name, without `v` and `_id_`.
async fn listed(db: &mongodb::Database, collection: &str) -> Vec<BsonDocument> {
    let mut list: Vec<BsonDocument> = match db
        .run_cursor_command(doc! { "listIndexes": collection })
        .await
    {
        Ok(cursor) => cursor.try_collect().await.unwrap(),
        Err(_) => Vec::new(), // no collection yet
    };
    list.retain(|d| d.get_str("name").unwrap() != "_id_");
    for index in &mut list {
        index.remove("v");
    }
    list.sort_by_key(|d| d.get_str("name").unwrap().to_string());
    list
}

/// An index made with the driver, as another tool or an older release would.
async fn create_raw(
    raw: &mongodb::Collection<BsonDocument>,
    keys: BsonDocument,
    options: IndexOptions,
) {
    let model = IndexModel::builder().keys(keys).options(options).build();
    raw.create_index(model).await.unwrap();
}

fn index_error(result: odm::Result<odm::SyncReport>) -> IndexError {
    match result {
        Err(Error::Index(e)) => *e,
        other => panic!("expected Error::Index, got {other:?}"),
    }
}

#[test]
fn the_declared_documents_carry_every_kind_option() {
    let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/");
    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(client)
        .unwrap();
    let db = client.database("declared");
    assert_eq!(
        Place::model(&db).indexes(),
        [
            doc! {
                "key": { "handle": 1 }, "name": "handle_1", "unique": true,
                "collation": { "locale": "en", "strength": 2 },
            },
            doc! { "key": { "seenAt": 1 }, "name": "seenAt_1", "expireAfterSeconds": 3600 },
            doc! { "key": { "loc": "2dsphere", "kind": 1 }, "name": "near" },
            doc! { "key": { "attrs.$**": 1 }, "name": "attrs.$**_1" },
        ]
    );
    assert_eq!(
        Article::model(&db).indexes(),
        [
            doc! { "key": { "published": 1 }, "name": "published_1" },
            doc! {
                "key": { "title": "text", "body": "text" }, "name": "search",
                "weights": { "title": 10 }, "default_language": "french",
            },
            doc! { "key": { "author": "hashed" }, "name": "author_hashed" },
        ]
    );
}

#[tokio::test]
async fn kinds_are_created_as_declared_and_a_resync_changes_nothing() {
    let t = TestDb::new().await;
    let places = Place::model(&t.db);
    let first = places.sync_indexes().await.unwrap();
    // Collation and TTL before the plain ones: kinds a server may lack go first.
    assert_eq!(
        first.created,
        ["attrs.$**_1", "near", "handle_1", "seenAt_1"]
    );

    let mut list = listed(&t.db, "places").await;
    let names: Vec<&str> = list.iter().map(|d| d.get_str("name").unwrap()).collect();
    assert_eq!(names, ["attrs.$**_1", "handle_1", "near", "seenAt_1"]);
    assert_eq!(
        list[0],
        doc! { "key": { "attrs.$**": 1 }, "name": "attrs.$**_1" }
    );
    // MongoDB lists every option of the locale; the declared ones are these.
    let collation = list[1].remove("collation").unwrap();
    let collation = collation.as_document().unwrap();
    assert_eq!(collation.get_str("locale").unwrap(), "en");
    assert_eq!(collation.get_i32("strength").unwrap(), 2);
    assert_eq!(
        list[1],
        doc! { "key": { "handle": 1 }, "name": "handle_1", "unique": true }
    );
    assert_eq!(
        list[2],
        doc! { "key": { "loc": "2dsphere", "kind": 1 }, "name": "near", "2dsphereIndexVersion": 3 }
    );
    assert_eq!(
        list[3],
        doc! { "key": { "seenAt": 1 }, "name": "seenAt_1", "expireAfterSeconds": 3600 }
    );

    let before = listed(&t.db, "places").await;
    let again = places.sync_indexes().await.unwrap();
    assert!(again.created.is_empty(), "{again:?}");
    assert_eq!(again.existing, PLACE_INDEXES);
    assert!(again.extra.is_empty());
    assert_eq!(listed(&t.db, "places").await, before);
    t.finish().await;
}

#[tokio::test]
async fn a_collation_unique_index_refuses_a_case_variant() {
    let t = TestDb::new().await;
    let places = Place::model(&t.db);
    places.sync_indexes().await.unwrap();
    places.create(place(1, "Ada")).await.unwrap();
    match places.create(place(2, "ADA")).await {
        Err(Error::DuplicateKey(e)) => assert_eq!(e.index.as_deref(), Some("handle_1")),
        other => panic!("expected a duplicate key on handle_1, got {other:?}"),
    }
    // Another handle is fine, and a rename into a case variant collides too.
    let mut grace = places.create(place(3, "Grace")).await.unwrap();
    grace.handle = "aDa".into();
    match grace.save().await {
        Err(Error::DuplicateKey(e)) => assert_eq!(e.index.as_deref(), Some("handle_1")),
        other => panic!("expected a duplicate key on handle_1, got {other:?}"),
    }
    assert_eq!(places.count(doc! {}).await.unwrap(), 2);
    t.finish().await;
}

#[tokio::test]
async fn a_changed_ttl_or_collation_is_reported_and_nothing_is_touched() {
    let t = TestDb::new().await;
    let places = Place::model(&t.db);
    let raw = places.collection();
    // seenAt_1 exists with another TTL.
    let ttl60 = IndexOptions::builder()
        .expire_after(std::time::Duration::from_secs(60))
        .build();
    create_raw(raw, doc! { "seenAt": 1 }, ttl60).await;
    let before = listed(&t.db, "places").await;
    let e = index_error(places.sync_indexes().await);
    assert_eq!(e.index, "seenAt_1");
    match &e.kind {
        IndexErrorKind::Conflict { differences, .. } => assert_eq!(
            differences,
            &["expireAfterSeconds: declared 3600, existing 60"]
        ),
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert!(e.to_string().contains("nothing was changed"), "{e}");
    assert_eq!(listed(&t.db, "places").await, before);

    // handle_1 exists unique, but case-sensitive (strength 3).
    raw.drop_indexes().await.unwrap();
    let strength3 = Collation::builder()
        .locale("en")
        .strength(mongodb::options::CollationStrength::Tertiary)
        .build();
    let unique3 = IndexOptions::builder()
        .unique(true)
        .collation(strength3)
        .build();
    create_raw(raw, doc! { "handle": 1 }, unique3).await;
    let before = listed(&t.db, "places").await;
    let e = index_error(places.sync_indexes().await);
    assert_eq!(e.index, "handle_1");
    match &e.kind {
        IndexErrorKind::Conflict { differences, .. } => {
            assert_eq!(differences.len(), 1, "{differences:?}");
            assert!(
                differences[0].starts_with(
                    "collation: declared { \"locale\": \"en\", \"strength\": 2 }, existing {"
                ),
                "{differences:?}"
            );
            assert!(
                differences[0].contains("\"strength\": 3"),
                "{differences:?}"
            );
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(listed(&t.db, "places").await, before);
    t.finish().await;
}

#[tokio::test]
async fn text_and_hashed_indexes_are_created_or_refused_before_anything_else() {
    let t = TestDb::new().await;
    let articles = Article::model(&t.db);
    match articles.sync_indexes().await {
        Ok(report) => {
            // A server with text and hashed indexes (MongoDB).
            assert_eq!(report.created, ["search", "author_hashed", "published_1"]);
            let list = listed(&t.db, "articles").await;
            let search = list
                .iter()
                .find(|d| d.get_str("name") == Ok("search"))
                .unwrap();
            assert_eq!(
                search.get_document("key").unwrap(),
                &doc! { "_fts": "text", "_ftsx": 1 }
            );
            assert_eq!(
                search.get_document("weights").unwrap(),
                &doc! { "body": 1, "title": 10 }
            );
            assert_eq!(search.get_str("default_language").unwrap(), "french");
            let hashed = list
                .iter()
                .find(|d| d.get_str("name") == Ok("author_hashed"));
            assert_eq!(
                hashed.unwrap().get_document("key").unwrap(),
                &doc! { "author": "hashed" }
            );
            let again = articles.sync_indexes().await.unwrap();
            assert!(again.created.is_empty(), "{again:?}");
            assert_eq!(again.existing, ["published_1", "search", "author_hashed"]);
        }
        Err(Error::Index(e)) => {
            // A server without text indexes (SecantusDB): the text index
            // is tried first, so no index of the model was created.
            assert_eq!(e.index, "search");
            match &e.kind {
                IndexErrorKind::Refused { message, .. } => {
                    assert!(
                        message.contains("text indexes are not supported"),
                        "{message}"
                    )
                }
                other => panic!("expected a refusal, got {other:?}"),
            }
            let text = e.to_string();
            assert!(
                text.starts_with("the server refused to create index \"search\""),
                "{text}"
            );
            assert_eq!(listed(&t.db, "articles").await, Vec::<BsonDocument>::new());
        }
        Err(other) => panic!("expected the indexes or an index refusal, got {other:?}"),
    }
    t.finish().await;
}
