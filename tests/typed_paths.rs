//! Typed field paths (`T::fields()`): their text (renames, nesting through
//! `Vec` / `Option` / a struct, flatten, skip), and their use as keys of
//! filters, sorts and updates in `find`, `count`, `claim` and `upsert`,
//! against the server. Compile-time misuse is in `tests/ui/typed-path-*`.

use std::collections::HashMap;

use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields, Validate)]
#[serde(rename_all = "camelCase")]
pub struct Author {
    pub display_name: String,
    /// Not stored: no accessor.
    #[serde(skip)]
    pub cached: bool,
}

/// Derives `Validate` too: the two derives read the same attributes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields, Validate)]
pub struct Comment {
    pub text: String,
    #[serde(rename = "by")]
    #[odm(nested)]
    pub author: Author,
    #[odm(min = 0)]
    pub likes: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Address {
    pub city: String,
}

/// Flattened into the post: its fields are stored at the top level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Audit {
    pub created_by: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "posts")]
pub struct Post {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[serde(rename = "headline")]
    pub title: String,
    #[odm(nested)]
    pub comments: Vec<Comment>,
    pub pinned: Option<Comment>,
    pub address: Address,
    pub rank: i32,
    pub tags: Vec<String>,
    pub counts: HashMap<String, i32>,
    #[serde(flatten)]
    pub audit: Audit,
    #[serde(skip)]
    pub scratch: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub first_name: String,
    pub last_name: String,
}

/// API.md's user, with camelCase names, an index and a nested profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users", optimistic_concurrency)]
#[serde(rename_all = "camelCase")]
pub struct User {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[odm(unique)]
    pub email_address: String,
    pub status: String,
    pub rank: i32,
    pub profile: Profile,
}

/// A generic document gets paths too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "boxes")]
pub struct Boxed<T> {
    #[serde(rename = "_id")]
    pub id: i64,
    pub value: T,
    pub address: Option<Address>,
}

/// A recursive embedded type: its paths go as deep as they are written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Tree {
    pub name: String,
    pub children: Vec<Tree>,
}

#[test]
fn paths_are_the_stored_names() {
    let f = Post::fields();
    assert_eq!(f.id().as_str(), "_id");
    assert_eq!(f.title().as_str(), "headline");
    assert_eq!(f.rank().as_str(), "rank");
    assert_eq!(f.tags().as_str(), "tags");
    assert_eq!(f.counts().as_str(), "counts");
    assert_eq!(f.address().city().as_str(), "address.city");
    // Through a Vec, an Option, a rename and a rename_all.
    assert_eq!(f.comments().as_str(), "comments");
    assert_eq!(f.comments().text().as_str(), "comments.text");
    assert_eq!(f.comments().author().as_str(), "comments.by");
    assert_eq!(
        f.comments().author().display_name().as_str(),
        "comments.by.displayName"
    );
    assert_eq!(f.pinned().likes().as_str(), "pinned.likes");
    // A flattened struct's fields are stored in the post itself.
    assert_eq!(f.audit().created_by().as_str(), "created_by");
    // Embedded types have their own paths, from their root.
    assert_eq!(Comment::fields().author().display_name(), "by.displayName");
    assert_eq!(User::fields().profile().first_name(), "profile.firstName");
    assert_eq!(User::fields().email_address(), "emailAddress");
    assert_eq!(Boxed::<String>::fields().value(), "value");
    assert_eq!(Boxed::<u8>::fields().address().city(), "address.city");
    assert_eq!(
        Tree::fields().children().children().name(),
        "children.children.name"
    );
}

#[test]
fn paths_are_static_text() {
    let path: &'static str = Post::fields().comments().author().display_name().as_str();
    assert_eq!(path, "comments.by.displayName");
    let owned: String = Post::fields().pinned().text().into();
    assert_eq!(owned, "pinned.text");
    assert_eq!(format!("{}", Post::fields().title()), "headline");
    assert_eq!(
        format!("{:?}", Post::fields().title()),
        "FieldPath(\"headline\")"
    );
    assert_eq!(
        doc! { Post::fields().comments().text(): "x", Post::fields().rank(): 1 },
        doc! { "comments.text": "x", "rank": 1 }
    );
}

fn comment(text: &str, author: &str, likes: i32) -> Comment {
    Comment {
        text: text.into(),
        author: Author {
            display_name: author.into(),
            cached: false,
        },
        likes,
    }
}

fn post(title: &str, city: &str, rank: i32, comments: Vec<Comment>) -> Post {
    Post {
        id: ObjectId::new(),
        title: title.into(),
        pinned: comments.first().cloned(),
        comments,
        address: Address { city: city.into() },
        rank,
        tags: vec!["queued".into()],
        counts: HashMap::new(),
        audit: Audit {
            created_by: "bob".into(),
        },
        scratch: String::new(),
    }
}

#[tokio::test]
async fn find_count_and_sort_by_typed_paths() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let a = posts
        .create(post("a", "Bergen", 2, vec![comment("hi", "ann", 1)]))
        .await
        .unwrap();
    let b = posts
        .create(post("b", "Oslo", 1, vec![comment("yo", "cid", 0)]))
        .await
        .unwrap();
    let c = posts
        .create(post(
            "c",
            "Tromsø",
            3,
            vec![comment("ok", "cid", 0), comment("hey", "ann", 5)],
        ))
        .await
        .unwrap();
    let f = Post::fields();

    // A filter through an array of sub-documents, sorted by a nested field.
    let found = posts
        .find(doc! { f.comments().author().display_name(): "ann" })
        .sort(doc! { f.address().city(): -1 })
        .await
        .unwrap();
    let ids: Vec<ObjectId> = found.iter().map(|d| d.id).collect();
    assert_eq!(ids, [c.id, a.id]);

    let first = posts
        .find_one(doc! { f.comments().likes(): { "$gte": 1 } })
        .sort(doc! { f.rank(): 1 })
        .await
        .unwrap()
        .expect("a post with a liked comment");
    assert_eq!(first.id, a.id);

    // A renamed field and a flattened one.
    assert_eq!(posts.count(doc! { f.title(): "b" }).await.unwrap(), 1);
    assert_eq!(
        posts
            .count(doc! { f.audit().created_by(): "bob" })
            .await
            .unwrap(),
        3
    );
    let pinned = posts
        .find(doc! { f.pinned().author().display_name(): "cid" })
        .sort(doc! { f.id(): 1 })
        .await
        .unwrap();
    let ids: Vec<ObjectId> = pinned.iter().map(|d| d.id).collect();
    assert_eq!(ids, [b.id, c.id]);
    t.finish().await;
}

#[tokio::test]
async fn claim_takes_the_first_by_a_typed_sort() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let mut ids = Vec::new();
    for (rank, city) in [(3, "Bergen"), (1, "Oslo"), (2, "Tromsø")] {
        ids.push(
            posts
                .create(post("p", city, rank, vec![]))
                .await
                .unwrap()
                .id,
        );
    }
    let f = Post::fields();
    let mut order = Vec::new();
    while let Some(claimed) = posts
        .claim(
            doc! { f.tags(): "queued" },
            doc! {
                "$pull": { f.tags(): "queued" },
                "$set": { f.address().city(): "Claimed" },
            },
        )
        .sort(doc! { f.rank(): 1 })
        .await
        .unwrap()
    {
        assert_eq!(claimed.address.city, "Claimed");
        assert!(claimed.tags.is_empty());
        order.push(claimed.id);
    }
    assert_eq!(order, [ids[1], ids[2], ids[0]]);
    assert_eq!(
        posts
            .count(doc! { f.address().city(): "Claimed" })
            .await
            .unwrap(),
        3
    );
    t.finish().await;
}

#[tokio::test]
async fn upsert_and_find_one_by_typed_paths() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let f = User::fields();
    // `#[odm(unique)]` names the Rust field, checked at compile time like
    // the accessors; its key is the same stored name.
    assert_eq!(
        users.indexes()[0].get_document("key").unwrap(),
        &doc! { f.email_address(): 1 }
    );
    users.sync_indexes().await.unwrap();
    let id = ObjectId::new();

    let inserted = users
        .upsert(doc! { f.email_address(): "a@b.c" })
        .set(doc! { f.status(): "ACTIVE" })
        .set_on_insert(doc! {
            f.id(): id,
            f.rank(): 5,
            f.profile().first_name(): "Ada",
            f.profile().last_name(): "Lovelace",
        })
        .await
        .unwrap();
    assert_eq!(
        inserted.into_inner(),
        User {
            id,
            email_address: "a@b.c".into(),
            status: "ACTIVE".into(),
            rank: 5,
            profile: Profile {
                first_name: "Ada".into(),
                last_name: "Lovelace".into(),
            },
        }
    );

    // Again: the same user, $setOnInsert left alone.
    let again = users
        .upsert(doc! { f.email_address(): "a@b.c" })
        .set(doc! { f.status(): "BANNED" })
        .set_on_insert(doc! { f.id(): ObjectId::new(), f.rank(): 0 })
        .await
        .unwrap();
    assert_eq!(
        (again.id, again.rank, again.status.as_str()),
        (id, 5, "BANNED")
    );
    assert_eq!(users.count(doc! {}).await.unwrap(), 1);

    let found = users
        .find_one(doc! { f.profile().first_name(): "Ada" })
        .await
        .unwrap()
        .expect("found by a nested path");
    assert_eq!(found.id, id);
    assert!(users
        .find_one(doc! { f.email_address(): "nobody@b.c" })
        .await
        .unwrap()
        .is_none());
    t.finish().await;
}
