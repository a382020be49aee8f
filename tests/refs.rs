//! `Ref<T>`: how it is stored and loaded, in typed filters, tracked and
//! saved like any scalar; `find_refs` (one `find` for many refs, counted
//! by a command monitor; one per chunk past the chunk's limit; targets at
//! an older schema version upgraded as `find` upgrades them) and the typed
//! `$lookup`.

use crate::common;
use crate::schema_support;

use common::Monitored;
use mongodb::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::random::Rng;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
struct Review {
    by: Ref<User>,
    stars: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    author: Ref<User>,
    #[serde(default)]
    reviewers: Vec<Ref<User>>,
    editor: Option<Ref<User>>,
    review: Option<Review>,
}

/// A model with a string id, referred to by `&str`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "tags")]
struct Tag {
    #[serde(rename = "_id")]
    id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "labels")]
struct Label {
    #[serde(rename = "_id")]
    id: i64,
    tag: Ref<Tag>,
}

fn user(name: &str) -> User {
    User {
        id: ObjectId::new(),
        name: name.into(),
    }
}

fn post(author: &User) -> Post {
    Post {
        id: ObjectId::new(),
        title: "hello".into(),
        author: Ref::from(author),
        reviewers: vec![],
        editor: None,
        review: None,
    }
}

async fn raw<T: odm::Document>(model: &Model<T>, id: impl Into<Bson>) -> BsonDocument {
    common::stored(model, id).await
}

#[tokio::test]
async fn a_ref_is_stored_as_the_targets_id_and_loads_back() {
    let t = TestDb::new().await;
    let (users, posts) = (User::model(&t.db), Post::model(&t.db));
    let (ann, bob) = (user("ann"), user("bob"));
    let mut p = post(&ann);
    p.reviewers = vec![Ref::new(bob.id), Ref::new(ann.id)];
    p.review = Some(Review {
        by: Ref::new(bob.id),
        stars: 5,
    });
    let created = posts.create(p.clone()).await.unwrap();
    let stored = raw(&posts, p.id).await;
    assert_eq!(stored.get("author"), Some(&Bson::ObjectId(ann.id)));
    assert_eq!(
        stored.get_array("reviewers").unwrap(),
        &vec![Bson::ObjectId(bob.id), Bson::ObjectId(ann.id)]
    );
    assert_eq!(stored.get("editor"), Some(&Bson::Null));
    assert_eq!(
        stored.get_document("review").unwrap().get("by"),
        Some(&Bson::ObjectId(bob.id))
    );
    let loaded = posts.find_by_id(p.id).await.unwrap().unwrap();
    assert_eq!(*loaded, p);
    assert_eq!(loaded.author.id(), &Bson::ObjectId(ann.id));
    assert_eq!(loaded.author, Ref::from(&users.new_doc(ann.clone())));
    assert_eq!(created.author, loaded.author);

    // Built from an id of the target's id type: `&str` for a String id.
    let tags = Tag::model(&t.db);
    let rust = tags.create(Tag { id: "rust".into() }).await.unwrap();
    let label = Label {
        id: 1,
        tag: Ref::new("rust"),
    };
    assert_eq!(label.tag, Ref::from(&rust));
    let name = String::from("rust");
    assert_eq!(label.tag, Ref::new(&name));
    assert_eq!(label.tag, Ref::new(name));
    Label::model(&t.db).create(label.clone()).await.unwrap();
    let stored = raw(&Label::model(&t.db), 1_i64).await;
    assert_eq!(stored.get("tag"), Some(&Bson::String("rust".into())));
    t.finish().await;
}

/// Documents written by other code (Mongoose stores an `ObjectId` ref as
/// the id itself) load as they are; a stored ref of another BSON type is
/// refused at load, naming the document and the field.
#[tokio::test]
async fn stored_refs_load_as_written_and_a_wrong_type_names_the_field() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let (ann, post_id) = (ObjectId::new(), ObjectId::new());
    posts
        .collection()
        .insert_one(doc! {
            "_id": post_id, "title": "from mongoose", "author": ann,
            "reviewers": [ann], "editor": null, "review": null, "__v": 0,
        })
        .await
        .unwrap();
    let loaded = posts.find_by_id(post_id).await.unwrap().unwrap();
    assert_eq!(loaded.author, Ref::new(ann));
    assert_eq!(loaded.reviewers, vec![Ref::new(ann)]);

    for (field, value, path) in [
        ("author", Bson::String(ann.to_hex()), "author"),
        (
            "reviewers",
            Bson::Array(vec![Bson::ObjectId(ann), Bson::Int32(7)]),
            "reviewers.1",
        ),
        ("editor", Bson::Boolean(true), "editor"),
        (
            "review",
            Bson::Document(doc! { "by": "x", "stars": 1 }),
            "review.by",
        ),
    ] {
        let id = ObjectId::new();
        let mut stored = doc! {
            "_id": id, "title": "bad", "author": ann, "reviewers": [], "editor": null, "review": null,
        };
        stored.insert(field, value);
        posts.collection().insert_one(stored).await.unwrap();
        let Err(Error::Deserialize(e)) = posts.find_by_id(id).await else {
            panic!("{field}: a ref of the wrong type loaded");
        };
        assert_eq!(e.path(), path, "{e}");
        assert_eq!(e.id(), &Bson::ObjectId(id));
        assert!(e.to_string().contains(&format!("field \"{path}\"")), "{e}");
    }
    t.finish().await;
}

#[tokio::test]
async fn typed_filters_and_updates_take_refs() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let (ann, bob, cy) = (user("ann"), user("bob"), user("cy"));
    let (a, b, c) = (Ref::from(&ann), Ref::from(&bob), Ref::from(&cy));
    let mut by_ann = post(&ann);
    by_ann.reviewers = vec![b.clone()];
    by_ann.review = Some(Review {
        by: c.clone(),
        stars: 3,
    });
    let mut by_bob = post(&bob);
    by_bob.editor = Some(a.clone());
    posts
        .insert_many([by_ann.clone(), by_bob.clone()])
        .await
        .unwrap();
    let f = Post::fields();
    let ids = |found: Vec<Doc<Post>>| found.iter().map(|p| p.id).collect::<Vec<_>>();
    let found = posts.find(f.author().eq(&a)).await.unwrap();
    assert_eq!(ids(found), [by_ann.id]);
    let found = posts
        .find(f.author().is_in([&a, &b]))
        .sort(doc! { "_id": 1 })
        .await;
    assert_eq!(found.unwrap().len(), 2);
    assert_eq!(
        ids(posts.find(f.reviewers().contains(&b)).await.unwrap()),
        [by_ann.id]
    );
    assert_eq!(
        ids(posts.find(f.editor().eq(&a)).await.unwrap()),
        [by_bob.id]
    );
    assert_eq!(
        ids(posts.find(f.editor().eq(None)).await.unwrap()),
        [by_ann.id]
    );
    assert_eq!(
        ids(posts.find(f.review().by().eq(&c)).await.unwrap()),
        [by_ann.id]
    );
    // By value too, and in updates.
    assert_eq!(
        ids(posts.find(f.author().eq(b.clone())).await.unwrap()),
        [by_bob.id]
    );
    posts
        .update_many(
            f.author().eq(&b),
            f.editor().set(&c).and(f.reviewers().push(&a)),
        )
        .await
        .unwrap();
    let stored = posts.find_by_id(by_bob.id).await.unwrap().unwrap();
    assert_eq!(
        (stored.editor.clone(), stored.reviewers.clone()),
        (Some(c), vec![a])
    );
    t.finish().await;
}

/// A ref field is tracked like a scalar (a `$set`), a list of refs like
/// any array (`$push`, `$pullAll` with the removal guard), and what is
/// stored after each save is what is in memory.
#[tokio::test]
async fn ref_changes_are_saved_as_any_field() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let (ann, bob) = (user("ann"), user("bob"));
    let p = posts.create(post(&ann)).await.unwrap();
    let mut p = posts.find_by_id(p.id).await.unwrap().unwrap();
    p.author = Ref::from(&bob);
    p.editor = Some(Ref::from(&ann));
    let (filter, update) = p.changes().unwrap();
    assert_eq!(filter, doc! { "_id": p.id });
    assert_eq!(
        update,
        doc! { "$set": { "author": bob.id, "editor": ann.id } }
    );
    p.save().await.unwrap();
    p.reviewers.push(Ref::from(&ann));
    p.reviewers.push(Ref::from(&bob));
    assert_eq!(
        p.changes().unwrap().1,
        doc! { "$push": { "reviewers": { "$each": [ann.id, bob.id] } }, "$inc": { "__v": 1 } }
    );
    p.save().await.unwrap();
    p.reviewers.retain(|r| *r != Ref::from(&ann));
    p.editor = None;
    assert_eq!(p.modified_paths(), ["reviewers", "editor"]);
    let update = p.changes().unwrap().1;
    assert_eq!(
        update.get_document("$pullAll").unwrap(),
        &doc! { "reviewers": [ann.id] }
    );
    p.save().await.unwrap();
    let stored = posts.find_by_id(p.id).await.unwrap().unwrap();
    assert_eq!(*stored, *p);
    assert_eq!(stored.version(), p.version());
    t.finish().await;
}

/// Random histories of ref changes: a copy saved alone stores exactly
/// what it holds; with a second, stale copy, every save stores what its
/// update makes of the stored document (MongoDB's semantics, by the
/// suite's update interpreter), or fails with a version error and
/// changes nothing.
#[tokio::test]
async fn random_ref_histories_store_what_is_in_memory() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let people: Vec<User> = (0..5).map(|i| user(&format!("u{i}"))).collect();
    let refs: Vec<Ref<User>> = people.iter().map(Ref::from).collect();
    let rounds: usize = std::env::var("ODM_RANDOM_HISTORIES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(30);
    let mut rng = Rng::new(32);
    for round in 0..rounds {
        let p = posts.create(post(&people[0])).await.unwrap();
        let mut copies = [
            posts.find_by_id(p.id).await.unwrap().unwrap(),
            posts.find_by_id(p.id).await.unwrap().unwrap(),
        ];
        let two = round % 2 == 1;
        for step in 0..8 {
            let doc = &mut copies[if two { rng.below(2) } else { 0 }];
            for _ in 0..1 + rng.below(3) {
                let r = rng.pick(&refs);
                match rng.below(6) {
                    0 => doc.author = r,
                    1 => doc.editor = Some(r),
                    2 => doc.editor = None,
                    3 => doc.reviewers.push(r),
                    4 if !doc.reviewers.is_empty() => {
                        let at = rng.below(doc.reviewers.len());
                        doc.reviewers.remove(at);
                    }
                    _ => doc.reviewers.retain(|x| *x != r),
                }
            }
            let before = raw(&posts, p.id).await;
            let update = doc.changes().map(|(_, update)| update);
            let at = format!("round {round} step {step}");
            match doc.save().await {
                Ok(()) => {
                    let stored = raw(&posts, p.id).await;
                    if let Some(update) = update {
                        let expected = odm_testing::update::apply(&before, &update).unwrap();
                        assert_eq!(stored, expected, "{at}");
                    }
                    if !two {
                        let loaded = posts.find_by_id(p.id).await.unwrap().unwrap();
                        assert_eq!(*loaded, **doc, "{at}");
                    }
                }
                Err(Error::Version(_)) => {
                    assert!(two, "{at}: a lone copy failed its save");
                    assert_eq!(raw(&posts, p.id).await, before, "{at}");
                    doc.reload().await.unwrap();
                }
                Err(e) => panic!("{at}: {e}"),
            }
        }
    }
    t.finish().await;
}

#[tokio::test]
async fn find_refs_reads_the_targets_of_500_posts_with_one_find() {
    let m = Monitored::new("find_refs").await;
    let (users, posts) = (User::model(m.db()), Post::model(m.db()));
    let authors: Vec<User> = (0..50).map(|i| user(&format!("author {i}"))).collect();
    users.insert_many(authors.clone()).await.unwrap();
    let all: Vec<Post> = (0..500).map(|i| post(&authors[i % 50])).collect();
    posts.insert_many(all).await.unwrap();
    let page = posts.find(doc! {}).await.unwrap();
    assert_eq!(page.len(), 500);

    m.monitor.clear();
    let found = users
        .find_refs(page.iter().map(|p| &p.author))
        .await
        .unwrap();
    let finds = m.monitor.named("find");
    assert_eq!(finds.len(), 1, "{:?}", m.monitor.all());
    assert_eq!(finds[0].command.get_str("find").unwrap(), "users");
    let asked = finds[0].command.get_document("filter").unwrap();
    assert_eq!(
        asked
            .get_document("_id")
            .unwrap()
            .get_array("$in")
            .unwrap()
            .len(),
        50
    );
    assert!(m.monitor.named("getMore").is_empty());
    assert_eq!(found.len(), 50);
    assert_eq!(found.missing().count(), 0);
    for p in &page {
        let author = found.get(&p.author).expect("every author found");
        assert_eq!(Ref::from(author), p.author);
    }
    // Tracked: a found author saves like any loaded document.
    let mut found = found;
    let first = page[0].author.clone();
    found.get_mut(&first).unwrap().name = "renamed".into();
    found.get_mut(&first).unwrap().save().await.unwrap();
    assert_eq!(
        raw(&users, first.id().clone())
            .await
            .get_str("name")
            .unwrap(),
        "renamed"
    );
    let docs = found.into_docs();
    assert_eq!(docs.len(), 50);
    assert_eq!(docs[0].id, authors[0].id);

    // Deleted targets are listed once each, in the order first asked.
    users
        .collection()
        .delete_many(doc! { "_id": { "$in": [authors[3].id, authors[1].id] } })
        .await
        .unwrap();
    let found = users
        .find_refs(page.iter().map(|p| &p.author))
        .await
        .unwrap();
    assert_eq!(found.len(), 48);
    let gone: Vec<&Ref<User>> = found.missing().collect();
    assert_eq!(gone, [&Ref::from(&authors[1]), &Ref::from(&authors[3])]);
    assert!(found.get(&Ref::from(&authors[1])).is_none());
    m.finish().await;
}

#[tokio::test]
async fn find_refs_of_nothing_sends_nothing() {
    let m = Monitored::new("find_refs_empty").await;
    let users = User::model(m.db());
    m.monitor.clear();
    let none: Vec<Ref<User>> = vec![];
    let found = users.find_refs(&none).await.unwrap();
    assert_eq!((found.len(), found.missing().count()), (0, 0));
    let lean = users.find_refs(&none).lean().await.unwrap();
    assert!(lean.is_empty());
    assert!(m.monitor.all().is_empty(), "{:?}", m.monitor.all());
    m.finish().await;
}

#[tokio::test]
async fn find_refs_takes_lean_sessions_and_read_options() {
    let m = Monitored::new("find_refs_options").await;
    let users = User::model(m.db());
    let ann = users.create(user("ann")).await.unwrap();
    let gone = Ref::<User>::new(ObjectId::new());
    let refs = [Ref::from(&ann), gone.clone(), Ref::from(&ann)];

    let lean = users.find_refs(&refs).lean().await.unwrap();
    assert_eq!(lean.get(&refs[0]), Some(&*ann));
    assert_eq!(lean.missing().collect::<Vec<_>>(), [&gone]);
    assert_eq!(lean.into_docs(), vec![(*ann).clone()]);

    m.monitor.clear();
    let found = users
        .find_refs(&refs)
        .comment("authors of a page")
        .max_time(std::time::Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    let find = &m.monitor.named("find")[0].command;
    assert_eq!(find.get_str("comment").unwrap(), "authors of a page");
    assert_eq!(
        find.get_document("filter")
            .unwrap()
            .get_document("_id")
            .unwrap()
            .get_array("$in")
            .unwrap()
            .len(),
        2
    );

    // Inside a transaction: the session's own uncommitted writes are seen.
    let mut s = m.client().start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    let bob = users.create(user("bob")).session(&mut s).await.unwrap();
    let inside = users
        .find_refs([&Ref::from(&bob)])
        .session(&mut s)
        .await
        .unwrap();
    assert_eq!(inside.len(), 1);
    let lean_inside = users
        .find_refs([&Ref::from(&bob)])
        .lean()
        .session(&mut s)
        .await
        .unwrap();
    assert_eq!(lean_inside.len(), 1);
    s.abort_transaction().await.unwrap();
    drop(s);
    let outside = users.find_refs([&Ref::from(&bob)]).await.unwrap();
    assert_eq!(outside.missing().count(), 1);
    m.finish().await;
}

/// Targets stored at an older schema version load through `find`'s own
/// load: upgraded in memory, tracked with the version they came from, and
/// a save writes the upgrade exactly as the save of a `find` does; the
/// lean form gives the upgraded values and writes nothing.
#[tokio::test]
async fn find_refs_upgrades_targets_at_an_older_schema_version() {
    use schema_support::{stored_at, Name, User as Versioned};
    let m = Monitored::new("find_refs_schema").await;
    let users = Versioned::model(m.db());
    // Targets at versions 0, 1 and 2 (the model's), and a twin of the
    // version 0 one (same fields, another id) for `find` + save.
    let ids: Vec<ObjectId> = (0..4).map(|_| ObjectId::new()).collect();
    let twin = ids[3];
    let written: Vec<BsonDocument> = [(0, 0), (1, 1), (2, 2), (0, 3)]
        .into_iter()
        .map(|(version, at)| stored_at(version, ids[at], 0))
        .collect();
    users.collection().insert_many(&written).await.unwrap();
    let upgraded = |id: ObjectId| Versioned {
        id,
        email: "u0@x.io".into(),
        name: Name {
            first: "First0".into(),
            last: "Last0".into(),
        },
        visits: 0,
    };
    let refs: Vec<Ref<Versioned>> = ids[..3].iter().map(|id| Ref::new(*id)).collect();
    m.monitor.clear();

    // Lean: the upgraded values, and nothing written.
    let lean = users.find_refs(&refs).lean().await.unwrap();
    assert_eq!(lean.len(), 3);
    for (r, id) in refs.iter().zip(&ids) {
        assert_eq!(lean.get(r), Some(&upgraded(*id)));
    }
    // Tracked: the upgraded values, each telling the version it was
    // stored at; still nothing written.
    let mut found = users.find_refs(&refs).await.unwrap();
    assert_eq!(found.len(), 3);
    for (at, (r, id)) in refs.iter().zip(&ids).enumerate() {
        let doc = found.get(r).unwrap();
        assert_eq!(**doc, upgraded(*id));
        assert_eq!(doc.migrated_from(), (at < 2).then_some(at as u32), "{at}");
        assert_eq!(doc.schema_version(), Some(at as i64));
        assert_eq!(doc.version(), Some(0));
    }
    assert_eq!(m.monitor.named("find").len(), 2);
    assert!(m.monitor.writes().is_empty(), "{:?}", m.monitor.writes());
    for (at, id) in ids.iter().enumerate() {
        assert_eq!(raw(&users, *id).await, written[at], "{at}: loading wrote");
    }

    // The save of a version 0 target writes the upgrade: the same update
    // (but for the `_id`) and the same stored document as the save of its
    // twin loaded with `find`.
    let sent = |m: &Monitored| {
        let updates = m.monitor.named("update");
        assert_eq!(updates.len(), 1, "{:?}", m.monitor.all());
        let sent = &updates[0].command.get_array("updates").unwrap()[0];
        let mut sent = sent.as_document().unwrap().clone();
        sent.get_document_mut("q").unwrap().remove("_id");
        sent
    };
    let without_id = |mut stored: BsonDocument| {
        stored.remove("_id");
        stored
    };
    let old = found.get_mut(&refs[0]).unwrap();
    m.monitor.clear();
    old.save().await.unwrap();
    let by_refs = sent(&m);
    assert_eq!(
        by_refs.get_document("u").unwrap(),
        &doc! {
            "$set": { "email": "u0@x.io", "name": { "first": "First0", "last": "Last0" }, "__sv": 2 },
            "$unset": { "mail": "", "full_name": "" },
            "$inc": { "__v": 1 },
        }
    );
    assert_eq!(
        (old.migrated_from(), old.schema_version(), old.version()),
        (None, Some(2), Some(1))
    );
    let stored = raw(&users, ids[0]).await;
    assert_eq!(
        stored,
        doc! {
            "_id": ids[0], "visits": 0_i64, "__v": 1, "__sv": 2,
            "email": "u0@x.io", "name": { "first": "First0", "last": "Last0" },
        }
    );
    let mut by_find = users.find_by_id(twin).await.unwrap().unwrap();
    assert_eq!(by_find.migrated_from(), Some(0));
    m.monitor.clear();
    by_find.save().await.unwrap();
    assert_eq!(by_refs, sent(&m));
    assert_eq!(without_id(stored), without_id(raw(&users, twin).await));
    m.finish().await;
}

/// More distinct refs than one `find` names (50,000 ids, `MAX_IDS` in
/// odm/src/refs/find.rs): one `find` per chunk, each distinct id asked
/// once whatever the duplicates, every target found wherever its chunk,
/// every other ref missing once.
#[tokio::test]
async fn find_refs_past_one_chunk_sends_one_find_per_chunk() {
    const CHUNK: usize = 50_000;
    let m = Monitored::new("find_refs_chunks").await;
    let users = User::model(m.db());
    // Distinct refs in the order given: one chunk and one id more. Five
    // exist, at both ends of each chunk and inside the first.
    let distinct: Vec<Ref<User>> = (0..CHUNK + 1).map(|_| Ref::new(ObjectId::new())).collect();
    let existing = [0, 1_234, CHUNK - 1, CHUNK];
    let people: Vec<User> = existing
        .iter()
        .map(|&at| User {
            id: distinct[at].id().as_object_id().unwrap(),
            name: format!("user {at}"),
        })
        .collect();
    users.insert_many(people.clone()).await.unwrap();
    // Duplicates, of found and of missing refs, inside one chunk and
    // across the two.
    let mut given = distinct.clone();
    given.insert(10, distinct[0].clone());
    given.insert(20, distinct[7].clone());
    given.extend([
        distinct[CHUNK].clone(),
        distinct[CHUNK - 1].clone(),
        distinct[1_234].clone(),
        distinct[3].clone(),
    ]);

    m.monitor.clear();
    let found = users.find_refs(&given).await.unwrap();
    let finds = m.monitor.named("find");
    let asked: Vec<Vec<Bson>> = finds
        .iter()
        .map(|f| {
            let filter = f.command.get_document("filter").unwrap();
            filter
                .get_document("_id")
                .unwrap()
                .get_array("$in")
                .unwrap()
                .clone()
        })
        .collect();
    assert_eq!(
        asked.iter().map(Vec::len).collect::<Vec<_>>(),
        [CHUNK, 1],
        "one find per chunk"
    );
    assert!(m.monitor.named("getMore").is_empty());
    // Each distinct id asked once, in the order first given.
    let ids: Vec<&Bson> = distinct.iter().map(Ref::id).collect();
    assert_eq!(asked.iter().flatten().collect::<Vec<_>>(), ids);

    assert_eq!(found.len(), existing.len());
    for (at, person) in existing.iter().zip(&people) {
        assert_eq!(**found.get(&distinct[*at]).expect("found"), *person);
    }
    let missing: Vec<&Ref<User>> = distinct
        .iter()
        .enumerate()
        .filter(|(at, _)| !existing.contains(at))
        .map(|(_, r)| r)
        .collect();
    assert_eq!(found.missing().collect::<Vec<_>>(), missing);
    m.finish().await;
}

#[tokio::test]
async fn lookup_joins_the_targets_as_tracked_docs() {
    let t = TestDb::new().await;
    let (users, posts) = (User::model(&t.db), Post::model(&t.db));
    let (ann, bob) = (user("ann"), user("bob"));
    users.insert_many([ann.clone(), bob.clone()]).await.unwrap();
    let mut first = post(&ann);
    first.title = "a".into();
    first.reviewers = vec![Ref::from(&bob), Ref::from(&ann)];
    let mut second = post(&user("ghost"));
    second.title = "b".into();
    posts
        .insert_many([first.clone(), second.clone()])
        .await
        .unwrap();

    let f = Post::fields();
    let by_author = posts
        .aggregate([])
        .sort(f.title().asc())
        .lookup(f.author(), &users);
    assert_eq!(
        by_author.pipeline()[1],
        doc! { "$lookup": { "from": "users", "localField": "author", "foreignField": "_id", "as": "__odm_joined" } }
    );
    let rows = by_author.await.unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].value, first);
    assert_eq!(rows[0].joined.len(), 1);
    assert_eq!(*rows[0].joined[0], ann);
    // A dangling ref joins nothing.
    assert_eq!(rows[1].value, second);
    assert!(rows[1].joined.is_empty());

    let mut rows = posts
        .aggregate([])
        .filter(f.title().eq("a"))
        .lookup(f.reviewers(), &users)
        .await
        .unwrap();
    let mut names: Vec<String> = rows[0].joined.iter().map(|u| u.name.clone()).collect();
    names.sort();
    assert_eq!(names, ["ann", "bob"]);
    // Tracked: a joined document saves.
    let joined = &mut rows[0].joined[0];
    joined.name = format!("{}!", joined.name);
    joined.save().await.unwrap();

    // Another row type.
    #[derive(Debug, Deserialize)]
    struct Title {
        title: String,
    }
    let rows = posts
        .aggregate([])
        .project(doc! { "title": 1, "author": 1 })
        .lookup(f.author(), &users)
        .with_type::<Title>()
        .await
        .unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows
        .iter()
        .any(|r| r.value.title == "a" && r.joined.len() == 1));
    t.finish().await;
}
