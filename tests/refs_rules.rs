//! Referential rules, one operation at a time: what each `on_delete` rule
//! does to the referring documents, which writes are refused for a
//! missing target (every path that adds a reference), what is sent (the
//! mark and the transaction only when a write adds a reference), the
//! hidden counter, and what is outside the rules. The concurrent proof is
//! tests/refs_race.rs.

use crate::common;

use common::Monitored;
use mongodb::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use odm::{DanglingError, ReferencedError};
use serde::{Deserialize, Serialize};

/// Stale copies must still save after a mark: optimistic concurrency and
/// `deny_unknown_fields` make either mistake visible.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "authors",
    optimistic_concurrency,
    referenced_by(Book, Note)
)]
#[serde(deny_unknown_fields)]
struct Author {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "books", referenced_by(Note))]
struct Book {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    #[odm(reference(on_delete = refuse), index)]
    author: Ref<Author>,
    #[odm(reference(on_delete = clear))]
    editor: Option<Ref<Author>>,
    #[odm(reference(on_delete = pull))]
    #[serde(default)]
    fans: Vec<Ref<Author>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "notes", referenced_by(Pin))]
struct Note {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(reference(on_delete = cascade))]
    about: Ref<Book>,
    #[odm(reference(on_delete = clear))]
    by: Option<Ref<Author>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "pins")]
struct Pin {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[odm(reference(on_delete = refuse))]
    note: Ref<Note>,
}

fn author(name: &str) -> Author {
    Author {
        id: ObjectId::new(),
        name: name.into(),
    }
}

fn book(author: &Author) -> Book {
    Book {
        id: ObjectId::new(),
        title: "t".into(),
        author: Ref::from(author),
        editor: None,
        fans: vec![],
    }
}

struct Models {
    authors: Model<Author>,
    books: Model<Book>,
    notes: Model<Note>,
    pins: Model<Pin>,
}

fn models(db: &mongodb::Database) -> Models {
    Models {
        authors: Author::model(db),
        books: Book::model(db),
        notes: Note::model(db),
        pins: Pin::model(db),
    }
}

async fn count<T: odm::Document>(model: &Model<T>) -> u64 {
    model.count(doc! {}).await.unwrap()
}

async fn stored<T: odm::Document>(model: &Model<T>, id: ObjectId) -> Option<BsonDocument> {
    model
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
}

async fn stored_fans(books: &Model<Book>, id: ObjectId) -> Vec<Bson> {
    stored(books, id)
        .await
        .unwrap()
        .get_array("fans")
        .unwrap()
        .clone()
}

fn referenced(e: Error) -> ReferencedError {
    match e {
        Error::Referenced(e) => *e,
        other => panic!("expected Error::Referenced, got {other:?}"),
    }
}

fn dangling(e: Error) -> DanglingError {
    match e {
        Error::Dangling(e) => *e,
        other => panic!("expected Error::Dangling, got {other:?}"),
    }
}

#[tokio::test]
async fn refuse_keeps_a_referred_to_document_and_names_who_refers() {
    let m = Monitored::new("refs_refuse").await;
    let x = models(m.db());
    let ann = x.authors.create(author("ann")).await.unwrap();
    let mut ann = x.authors.find_by_id(ann.id).await.unwrap().unwrap();
    let first = x.books.create(book(&ann)).await.unwrap();
    x.books.create(book(&ann)).await.unwrap();

    let e = referenced(ann.delete().await.unwrap_err());
    assert_eq!(e.collection(), "authors");
    assert_eq!(e.id(), &Bson::ObjectId(ann.id));
    assert_eq!((e.referrers(), e.path(), e.count()), ("books", "author", 2));
    assert_eq!(e.referrer(), &Bson::ObjectId(first.id));
    assert_eq!(
        Error::Referenced(Box::new(e.clone())).to_string(),
        format!(
            "cannot delete \"{}\" from collection \"authors\": 2 documents of \"books\" refer to it by \"author\" (one is \"{}\"); nothing was deleted",
            ann.id, first.id
        )
    );
    assert!(stored(&x.authors, ann.id).await.is_some());
    // The `Doc` is not marked deleted: once the books go, it deletes.
    let e = referenced(x.authors.delete_many(doc! {}).await.unwrap_err());
    assert_eq!(e.count(), 2);
    assert_eq!(count(&x.authors).await, 1);
    x.books.delete_many(doc! {}).await.unwrap();
    ann.delete().await.unwrap();
    assert_eq!(count(&x.authors).await, 0);
    m.finish().await;
}

#[tokio::test]
async fn clear_and_pull_remove_the_reference_and_bump_the_version() {
    let m = Monitored::new("refs_clear_pull").await;
    let x = models(m.db());
    let (ann, bob) = (author("ann"), author("bob"));
    x.authors
        .insert_many([ann.clone(), bob.clone()])
        .await
        .unwrap();
    let mut b = book(&ann);
    b.editor = Some(Ref::from(&bob));
    b.fans = vec![Ref::from(&bob), Ref::from(&ann), Ref::from(&bob)];
    let b = x.books.create(b).await.unwrap();
    let note = Note {
        id: ObjectId::new(),
        about: Ref::from(&*b),
        by: Some(Ref::from(&bob)),
    };
    x.notes.create(note.clone()).await.unwrap();

    let deleted = x.authors.delete_many(doc! { "_id": bob.id }).await.unwrap();
    assert_eq!(deleted, 1);
    let stored = stored(&x.books, b.id).await.unwrap();
    assert_eq!(stored.get("editor"), Some(&Bson::Null));
    assert_eq!(
        stored.get_array("fans").unwrap(),
        &vec![Bson::ObjectId(ann.id)]
    );
    // One versioned `update_many` per rule: clear, then pull.
    assert_eq!(stored.get_i32("__v").unwrap(), 2);
    let note = x.notes.find_by_id(note.id).await.unwrap().unwrap();
    assert_eq!(note.by, None);
    // A stale copy of the book still holds bob: its push writes only the
    // pushed id (bob stays pulled); its versioned save fails on the
    // version the rules bumped.
    let mut stale = b;
    stale.fans.push(Ref::from(&ann));
    stale.save().await.unwrap();
    let fans = stored_fans(&x.books, stale.id).await;
    assert_eq!(fans, vec![Bson::ObjectId(ann.id), Bson::ObjectId(ann.id)]);
    // Writing the whole list writes every id in it: bob is refused.
    stale.fans.reverse();
    let e = dangling(stale.save().await.unwrap_err());
    assert_eq!((e.path(), e.id()), ("fans", &Bson::ObjectId(bob.id)));
    let raw = odm::bson::RawDocumentBuf::try_from(&stored).unwrap();
    let mut older = x.books.hydrate(&raw).unwrap();
    older.title = "stale".into();
    older.increment();
    let outcome = older.save().await;
    assert!(matches!(outcome, Err(Error::Version(_))), "{outcome:?}");
    m.finish().await;
}

#[tokio::test]
async fn cascade_deletes_referrers_with_their_own_rules() {
    let m = Monitored::new("refs_cascade").await;
    let x = models(m.db());
    let ann = x.authors.create(author("ann")).await.unwrap();
    let mut kept = x.books.create(book(&ann)).await.unwrap();
    let mut doomed = x.books.create(book(&ann)).await.unwrap();
    let note = |about: &Book| Note {
        id: ObjectId::new(),
        about: Ref::from(about),
        by: None,
    };
    let (n1, n2, n3) = (note(&doomed), note(&doomed), note(&kept));
    x.notes
        .insert_many([n1.clone(), n2.clone(), n3.clone()])
        .await
        .unwrap();

    doomed.delete().await.unwrap();
    assert!(stored(&x.books, doomed.id).await.is_none());
    assert!(stored(&x.notes, n1.id).await.is_none());
    assert!(stored(&x.notes, n2.id).await.is_none());
    assert!(stored(&x.notes, n3.id).await.is_some());

    // A cascade reaching a refused document refuses the whole delete.
    x.pins
        .create(Pin {
            id: ObjectId::new(),
            note: Ref::from(&n3),
        })
        .await
        .unwrap();
    let e = referenced(kept.delete().await.unwrap_err());
    assert_eq!(
        (e.collection(), e.referrers(), e.path()),
        ("notes", "pins", "note")
    );
    assert_eq!(e.id(), &Bson::ObjectId(n3.id));
    assert!(stored(&x.books, kept.id).await.is_some());
    assert!(stored(&x.notes, n3.id).await.is_some());
    m.finish().await;
}

/// Every path that writes a reference refuses one to a document that
/// does not exist, naming the field and the id, and writes nothing.
#[tokio::test]
async fn every_write_of_a_reference_to_nothing_is_refused() {
    let m = Monitored::new("refs_dangling").await;
    let x = models(m.db());
    let ann = x.authors.create(author("ann")).await.unwrap();
    let ghost = author("ghost");
    let check = |e: Error| {
        let e = dangling(e);
        assert_eq!(
            (e.collection(), e.target(), e.id()),
            ("books", "authors", &Bson::ObjectId(ghost.id))
        );
        e.path().to_string()
    };

    // create / save of a new document.
    let e = x.books.create(book(&ghost)).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "cannot write to collection \"books\": \"author\" refers to \"{}\" in \"authors\", which does not exist; nothing was written",
            ghost.id
        )
    );
    assert_eq!(check(e), "author");
    let mut new = x.books.new_doc(book(&ghost));
    assert_eq!(check(new.save().await.unwrap_err()), "author");
    assert!(new.is_new());
    assert_eq!(count(&x.books).await, 0);

    // save of a loaded document: the Doc keeps its change.
    let mut b = x.books.create(book(&ann)).await.unwrap();
    b.fans.push(Ref::from(&ghost));
    assert_eq!(check(b.save().await.unwrap_err()), "fans");
    assert_eq!(b.fans.len(), 1);
    assert_eq!(b.version(), Some(0));
    b.fans.clear();
    b.editor = Some(Ref::from(&ghost));
    assert_eq!(check(b.save().await.unwrap_err()), "editor");
    b.editor = None;
    b.title = "saved".into();
    b.save().await.unwrap();

    // insert_many and bulk_save: the whole batch is refused.
    let e = x
        .books
        .insert_many([book(&ann), book(&ghost)])
        .await
        .unwrap_err();
    assert_eq!(check(e), "author");
    assert_eq!(count(&x.books).await, 1);
    let mut batch = vec![x.books.new_doc(book(&ann)), x.books.new_doc(book(&ghost))];
    assert_eq!(
        check(x.books.bulk_save(&mut batch).await.unwrap_err()),
        "author"
    );
    assert!(batch.iter().all(Doc::is_new));
    assert_eq!(count(&x.books).await, 1);

    // upsert (set, or the filter's equality), update_many, claim.
    let upsert = x
        .books
        .upsert(doc! { "title": "new" })
        .set(doc! { "author": ghost.id, "fans": [] })
        .await;
    assert_eq!(check(upsert.unwrap_err()), "author");
    let upsert = x
        .books
        .upsert(doc! { "author": ghost.id })
        .set(doc! { "title": "new", "fans": [] })
        .await;
    assert_eq!(check(upsert.unwrap_err()), "author");
    let f = Book::fields();
    let update = x
        .books
        .update_many(doc! {}, f.editor().set(Ref::from(&ghost)))
        .await;
    assert_eq!(check(update.unwrap_err()), "editor");
    let claim = x
        .books
        .claim(doc! { "title": "saved" }, f.fans().push(Ref::from(&ghost)))
        .await;
    assert_eq!(check(claim.unwrap_err()), "fans");
    let stored = stored(&x.books, b.id).await.unwrap();
    assert_eq!(stored.get("editor"), Some(&Bson::Null));
    assert!(stored.get_array("fans").unwrap().is_empty());
    assert_eq!(count(&x.books).await, 1);

    // The same writes to an existing author land.
    x.books
        .update_many(doc! {}, f.editor().set(Ref::from(&*ann)))
        .await
        .unwrap();
    let claimed = x
        .books
        .claim(doc! { "title": "saved" }, f.fans().push(Ref::from(&*ann)))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.fans, vec![Ref::from(&*ann)]);
    let up = x
        .books
        .upsert(doc! { "author": ann.id })
        .set(doc! { "title": "up", "fans": [] })
        .await
        .unwrap();
    assert_eq!(up.author, Ref::from(&*ann));
    m.finish().await;
}

/// An update whose value for a reference field the server computes
/// cannot be checked: refused before anything is sent.
#[tokio::test]
async fn an_update_odm_cannot_check_is_refused_before_sending() {
    let m = Monitored::new("refs_unchecked").await;
    let x = models(m.db());
    m.monitor.clear();
    let e = x
        .books
        .update_many(doc! {}, doc! { "$rename": { "draftAuthor": "author" } })
        .await
        .unwrap_err();
    let Error::Validation(e) = e else {
        panic!("{e:?}")
    };
    assert_eq!(e.paths(), ["author"]);
    assert!(m.monitor.all().is_empty(), "{:?}", m.monitor.all());
    m.finish().await;
}

/// A write that adds no reference sends what it would without rules; one
/// that adds references sends one mark per target collection inside its
/// transaction. The mark is hidden from the target's value and does not
/// bump its version.
#[tokio::test]
async fn only_a_write_that_adds_a_reference_pays_for_it() {
    let m = Monitored::new("refs_cost").await;
    let x = models(m.db());
    let ann = x.authors.create(author("ann")).await.unwrap();
    let mut stale_ann = x.authors.find_by_id(ann.id).await.unwrap().unwrap();

    m.monitor.clear();
    let mut b = x.books.create(book(&ann)).await.unwrap();
    let names: Vec<String> = m.monitor.all().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["update", "insert", "commitTransaction"]);
    let mark = &m.monitor.named("update")[0].command;
    assert_eq!(mark.get_str("update").unwrap(), "authors");
    assert!(mark.contains_key("txnNumber"));

    m.monitor.clear();
    b.title = "no reference changed".into();
    b.save().await.unwrap();
    let names: Vec<String> = m.monitor.all().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["update"]);
    assert!(!m.monitor.all()[0].command.contains_key("txnNumber"));

    // The target counts the marks, hidden from its value and version.
    let stored_ann = stored(&x.authors, ann.id).await.unwrap();
    assert_eq!(stored_ann.get_i64("__refs").unwrap(), 1);
    assert_eq!(stored_ann.get_i32("__v").unwrap(), 0);
    let loaded = x.authors.find_by_id(ann.id).await.unwrap().unwrap();
    assert_eq!(loaded.version(), Some(0));
    stale_ann.name = "Ann".into();
    stale_ann.save().await.unwrap();
    assert!(x.authors.find(doc! {}).lean().await.unwrap().len() == 1);
    m.finish().await;
}

/// Inside the caller's transaction, the marks and rules run in it: they
/// commit or abort with it.
#[tokio::test]
async fn rules_run_inside_the_callers_transaction() {
    let m = Monitored::new("refs_in_transaction").await;
    let x = models(m.db());
    let ann = x.authors.create(author("ann")).await.unwrap();
    let client = m.client().clone();
    let books = x.books.clone();
    let a = (*ann).clone();
    let out = odm::transaction(&client, (), move |s, _| {
        let (books, a) = (books.clone(), a.clone());
        Box::pin(async move {
            books.create(book(&a)).session(s).await?;
            Err::<(), _>(Error::application("changed my mind"))
        })
    })
    .await;
    assert!(out.is_err());
    assert_eq!(count(&x.books).await, 0);
    assert!(stored(&x.authors, ann.id)
        .await
        .unwrap()
        .get("__refs")
        .is_none());

    let books = x.books.clone();
    let authors = x.authors.clone();
    let (a, ghost) = ((*ann).clone(), author("ghost"));
    let e = odm::transaction(&client, (), move |s, _| {
        let (books, authors, a, ghost) = (books.clone(), authors.clone(), a.clone(), ghost.clone());
        Box::pin(async move {
            books.create(book(&a)).session(s).await?;
            authors.delete_many(doc! { "_id": a.id }).session(s).await?;
            books.create(book(&ghost)).session(s).await?;
            Ok(())
        })
    })
    .await
    .unwrap_err();
    referenced(e);
    assert_eq!(count(&x.books).await, 0);

    // A session without a transaction gets one for the write.
    let mut s = m.client().start_session().await.unwrap();
    x.books.create(book(&ann)).session(&mut s).await.unwrap();
    let e = x
        .books
        .create(book(&author("nobody")))
        .session(&mut s)
        .await
        .unwrap_err();
    dangling(e);
    drop(s);
    assert_eq!(count(&x.books).await, 1);
    m.finish().await;
}

/// A batch under rules is one transaction: a duplicate key of one `Doc`
/// is the batch's error and nothing of it is written.
#[tokio::test]
async fn a_batch_under_rules_is_all_or_nothing() {
    let m = Monitored::new("refs_batch").await;
    let x = models(m.db());
    let ann = x.authors.create(author("ann")).await.unwrap();
    let taken = x.books.create(book(&ann)).await.unwrap();
    let mut twin = book(&ann);
    twin.id = taken.id;
    let e = x.books.insert_many([book(&ann), twin]).await.unwrap_err();
    assert!(matches!(e, Error::DuplicateKey(_)), "{e:?}");
    assert_eq!(count(&x.books).await, 1);
    let made = x.books.insert_many([book(&ann), book(&ann)]).await.unwrap();
    assert!(made.iter().all(Result::is_ok));
    assert_eq!(count(&x.books).await, 3);
    m.finish().await;
}

/// Rules hold between the declared collections: a handle on another
/// collection, and the driver's collection itself, are outside them.
#[tokio::test]
async fn handles_on_other_collections_are_outside_the_rules() {
    let m = Monitored::new("refs_outside").await;
    let x = models(m.db());
    let archive = Model::<Book>::with_collection(m.db(), "books_archive");
    let ghost = author("ghost");
    archive.create(book(&ghost)).await.unwrap();
    let ann = x.authors.create(author("ann")).await.unwrap();
    let authors_copy = Model::<Author>::with_collection(m.db(), "authors_copy");
    authors_copy.create((*ann).clone()).await.unwrap();
    x.books.create(book(&ann)).await.unwrap();
    assert_eq!(authors_copy.delete_many(doc! {}).await.unwrap(), 1);
    m.finish().await;
}
