//! The round trips of the `CPU` rows, each two ways: odm's call, and the
//! call a user would write with the driver alone for the same command
//! (same filter, same update; reads into `T` through serde, as
//! `Collection<T>` gives them).

use futures_util::TryStreamExt;
use mongodb::options::UpdateOneModel;
use mongodb::{Client, Collection, Database, Namespace};
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::common::{Article, Comment, Small};

/// A benchmark document type: what the round trips change in it.
pub trait Shape:
    Document + Clone + PartialEq + std::fmt::Debug + Serialize + DeserializeOwned + Unpin
{
    /// Its array of sub-documents (S has none).
    fn comments_mut(&mut self) -> Option<&mut Vec<Comment>>;
    /// `counter` of a `Doc`, reached through `Doc::field_mut` under
    /// `ODM_CPU_REACH=1`, else through `DerefMut` (as `doc.counter`).
    fn counter_of(doc: &mut Doc<Self>) -> &mut i32;
    /// Pushes `comment` to the comments of a `Doc` through `Doc::push`
    /// under `ODM_CPU_REACH=1`, else through `DerefMut`; `false` for a
    /// shape without comments.
    fn push_comment(doc: &mut Doc<Self>, comment: Comment) -> bool;
    /// Its array of strings (S has none), the same way.
    fn tags_of(doc: &mut Doc<Self>) -> Option<&mut Vec<String>>;
}

/// Whether odm's side changes its `Doc`s through `Doc::field_mut` and
/// `Doc::push` (`ODM_CPU_REACH=1`) rather than `DerefMut`.
pub fn reach() -> bool {
    static REACH: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *REACH.get_or_init(|| std::env::var("ODM_CPU_REACH").as_deref() == Ok("1"))
}

impl Shape for Small {
    fn counter_of(doc: &mut Doc<Self>) -> &mut i32 {
        match reach() {
            true => doc.field_mut(Small::fields().counter()),
            false => &mut doc.counter,
        }
    }
    fn push_comment(_: &mut Doc<Self>, _: Comment) -> bool {
        false
    }
    fn tags_of(_: &mut Doc<Self>) -> Option<&mut Vec<String>> {
        None
    }
    fn comments_mut(&mut self) -> Option<&mut Vec<Comment>> {
        None
    }
}

impl Shape for Article {
    fn counter_of(doc: &mut Doc<Self>) -> &mut i32 {
        match reach() {
            true => doc.field_mut(Article::fields().counter()),
            false => &mut doc.counter,
        }
    }
    fn push_comment(doc: &mut Doc<Self>, comment: Comment) -> bool {
        match reach() {
            true => doc.push(Article::fields().comments(), comment),
            false => doc.comments.push(comment),
        }
        true
    }
    fn tags_of(doc: &mut Doc<Self>) -> Option<&mut Vec<String>> {
        Some(match reach() {
            true => doc.field_mut(Article::fields().tags()),
            false => &mut doc.tags,
        })
    }
    fn comments_mut(&mut self) -> Option<&mut Vec<Comment>> {
        Some(&mut self.comments)
    }
}

/// One kind of round trip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `save()` of one changed scalar: `$set` of `counter`.
    Scalar,
    /// `save()` of one pushed comment: `$push` with `$each`.
    Push,
    /// `save()` of a reordered `tags`: `$set` of the whole array.
    Rewrite,
    /// A `Doc` loaded, one scalar changed, saved: `find_by_id`, then the
    /// `$set` of `counter` (a request handler's whole cycle; the driver's
    /// side reads into `T`, then sends the same update).
    LoadSave,
    /// `find_by_id`: one `find` of `{_id}`.
    FindById,
    /// `bulk_save` of every `Doc` with `counter` changed: one `bulkWrite`.
    Bulk,
    /// `find` of every document.
    Find,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::Scalar,
        Kind::Push,
        Kind::Rewrite,
        Kind::LoadSave,
        Kind::FindById,
        Kind::Bulk,
        Kind::Find,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Scalar => "save_scalar",
            Kind::Push => "save_push",
            Kind::Rewrite => "save_rewrite",
            Kind::LoadSave => "load_save",
            Kind::FindById => "find_by_id",
            Kind::Bulk => "bulk_save",
            Kind::Find => "find_many",
        }
    }

    /// What the driver side calls, for the tables.
    pub fn driver_call(self) -> &'static str {
        match self {
            Kind::Scalar | Kind::Push | Kind::Rewrite => "update_one",
            Kind::LoadSave => "find_one into T, update_one",
            Kind::FindById => "find_one into T",
            Kind::Bulk => "client.bulk_write",
            Kind::Find => "find into Vec<T>",
        }
    }

    /// One call over all the documents, not one document.
    pub fn many(self) -> bool {
        matches!(self, Kind::Bulk | Kind::Find)
    }

    /// Needs the shape's arrays (S has none).
    pub fn arrays(self) -> bool {
        matches!(self, Kind::Push | Kind::Rewrite)
    }
}

/// odm's side: the model and the `Doc`s it tracks.
pub struct Odm<T: Shape> {
    pub model: Model<T>,
    /// The first document, for the one-document round trips.
    one: Option<Doc<T>>,
    /// Every document, for `bulk_save`.
    many: Vec<Doc<T>>,
    /// How many documents the collection holds.
    count: usize,
}

/// What the driver's side knows of one stored document.
#[derive(Clone, Debug)]
struct Mirror {
    id: Bson,
    version: i32,
    tags: Vec<String>,
}

/// The driver's side: the typed collection, the client (for its bulk
/// write) and what the user's code knows of the stored documents.
pub struct Driver<T: Shape> {
    client: Client,
    collection: Collection<T>,
    namespace: Namespace,
    mirrors: Vec<Mirror>,
    /// How many documents the collection holds.
    count: usize,
}

/// The comment pushed by op `n`: the same on both sides.
fn pushed(pool: &[Comment], n: i32) -> &Comment {
    &pool[n as usize % pool.len()]
}

fn version_filter(m: &Mirror) -> BsonDocument {
    doc! { "_id": m.id.clone(), "__v": m.version }
}

impl<T: Shape> Odm<T> {
    /// The side of `kind`, its `Doc`s loaded from `db`: the document
    /// `first` for a save, every one of the `count` documents for a batch.
    pub async fn load(db: &Database, kind: Kind, first: &Bson, count: usize) -> Odm<T> {
        let model = T::model(db);
        let (mut one, mut many) = (None, Vec::new());
        match kind {
            Kind::Scalar | Kind::Push | Kind::Rewrite => {
                one = model.find_by_id(first.clone()).await.unwrap();
                assert!(one.is_some(), "the first document");
            }
            Kind::Bulk => {
                many = model.find(doc! {}).sort(doc! { "_id": 1 }).await.unwrap();
                assert_eq!(many.len(), count, "every document");
            }
            Kind::LoadSave | Kind::FindById | Kind::Find => {}
        }
        Odm {
            model,
            one,
            many,
            count,
        }
    }

    /// Asserts every `Doc` of this side holds what is stored, value and
    /// version, and nothing pending.
    pub async fn check(&self) {
        for doc in self.one.iter().chain(&self.many) {
            let stored = self.model.find_by_id(doc.id().unwrap()).await.unwrap();
            let stored = stored.expect("stored");
            assert!(*stored == **doc, "stored == memory");
            assert_eq!(stored.version(), doc.version(), "the stored version");
            assert_eq!(doc.changes(), None, "nothing pending");
        }
    }

    fn one(&mut self) -> &mut Doc<T> {
        self.one.as_mut().expect("a loaded Doc")
    }

    /// Untimed, before op `n` of `kind`: the changes a user makes to the
    /// many `Doc`s of a batch before calling `bulk_save`.
    pub fn prepare(&mut self, kind: Kind, n: i32) {
        if kind == Kind::Bulk {
            for doc in &mut self.many {
                *T::counter_of(doc) = n;
            }
        }
    }

    /// The timed round trip `n` of `kind`: the change (if any) and the call.
    pub async fn op(&mut self, kind: Kind, n: i32, pool: &[Comment], first: &Bson) {
        match kind {
            Kind::Scalar => {
                let doc = self.one();
                *T::counter_of(doc) = n;
                doc.save().await.unwrap();
            }
            Kind::Push => {
                let doc = self.one();
                let comment = pushed(pool, n).clone();
                assert!(T::push_comment(doc, comment), "comments");
                doc.save().await.unwrap();
            }
            Kind::Rewrite => {
                let doc = self.one();
                T::tags_of(doc).expect("tags").rotate_left(1);
                doc.save().await.unwrap();
            }
            Kind::LoadSave => {
                let found = self.model.find_by_id(first.clone()).await.unwrap();
                let mut doc = found.expect("found");
                *T::counter_of(&mut doc) = n;
                doc.save().await.unwrap();
            }
            Kind::FindById => {
                let found = self.model.find_by_id(first.clone()).await.unwrap();
                assert!(found.is_some(), "found");
                drop(found);
            }
            Kind::Bulk => {
                let outcomes = self.model.bulk_save(&mut self.many).await.unwrap();
                assert!(outcomes.iter().all(Result::is_ok), "every Doc saved");
            }
            Kind::Find => {
                let found = self.model.find(doc! {}).await.unwrap();
                assert_eq!(found.len(), self.count, "every document");
                drop(found);
            }
        }
    }

    /// Untimed, after op `n`: a push is taken back (by a save of the
    /// popped array), so the document keeps its size.
    pub async fn restore(&mut self, kind: Kind) {
        if kind == Kind::Push {
            let doc = self.one();
            doc.comments_mut().expect("comments").pop();
            doc.save().await.unwrap();
        }
    }
}

impl<T: Shape> Driver<T> {
    /// The side of `kind` on the collection of `T` in `db`, what it knows
    /// of its documents read from there: the document `first` for a save,
    /// the `_id` and version of every one of the `count` documents for a
    /// batch.
    pub async fn load(db: &Database, kind: Kind, first: &Bson, count: usize) -> Driver<T> {
        let name = T::__odm_meta().collection;
        let collection = db.collection::<T>(name);
        let stored = db.collection::<BsonDocument>(name);
        let read: Vec<BsonDocument> = match kind {
            Kind::Scalar | Kind::Push | Kind::Rewrite | Kind::LoadSave => {
                let one = stored
                    .find_one(doc! { "_id": first.clone() })
                    .await
                    .unwrap();
                vec![one.expect("the first document")]
            }
            Kind::Bulk => stored
                .find(doc! {})
                .projection(doc! { "_id": 1, "__v": 1 })
                .sort(doc! { "_id": 1 })
                .await
                .unwrap()
                .try_collect()
                .await
                .unwrap(),
            Kind::FindById | Kind::Find => Vec::new(),
        };
        let mirrors = read
            .iter()
            .map(|d| Mirror {
                id: d.get("_id").unwrap().clone(),
                version: d.get_i32("__v").unwrap(),
                tags: match d.get_array("tags") {
                    Ok(tags) => tags
                        .iter()
                        .map(|t| t.as_str().unwrap().to_string())
                        .collect(),
                    Err(_) => Vec::new(),
                },
            })
            .collect();
        Driver {
            client: db.client().clone(),
            namespace: collection.namespace(),
            collection,
            mirrors,
            count,
        }
    }

    /// The hand-written update of op `n` of `kind` (one of the saves).
    fn update(&mut self, kind: Kind, n: i32, pool: &[Comment]) -> BsonDocument {
        match kind {
            Kind::Scalar | Kind::LoadSave => {
                doc! { "$set": { "counter": n }, "$inc": { "__v": 1 } }
            }
            Kind::Push => {
                let c = pushed(pool, n);
                doc! {
                    "$push": { "comments": { "$each": [
                        { "_id": c.id, "author": c.author.clone(), "text": c.text.clone(), "likes": c.likes },
                    ] } },
                    "$inc": { "__v": 1 },
                }
            }
            _ => {
                let m = &mut self.mirrors[0];
                m.tags.rotate_left(1);
                doc! { "$set": { "tags": m.tags.clone() }, "$inc": { "__v": 1 } }
            }
        }
    }

    /// The hand-written update of op `n` of `kind`, sent to the first
    /// document with the version this side knows.
    async fn update_first(&mut self, kind: Kind, n: i32, pool: &[Comment]) {
        let update = self.update(kind, n, pool);
        let filter = version_filter(&self.mirrors[0]);
        let done = self.collection.update_one(filter, update).await.unwrap();
        assert_eq!(done.matched_count, 1, "the hand-written update matched");
        self.mirrors[0].version += 1;
    }

    /// `find_one` of `{_id: first}` into `T`.
    async fn find_one(&self, first: &Bson) -> Option<T> {
        let filter = doc! { "_id": first.clone() };
        self.collection.find_one(filter).await.unwrap()
    }

    /// The same round trip as [`Odm::op`], by hand.
    pub async fn op(&mut self, kind: Kind, n: i32, pool: &[Comment], first: &Bson) {
        match kind {
            Kind::Scalar | Kind::Push | Kind::Rewrite => self.update_first(kind, n, pool).await,
            Kind::LoadSave => {
                let found = self.find_one(first).await.expect("found");
                self.update_first(kind, n, pool).await;
                drop(found);
            }
            Kind::FindById => {
                let found = self.find_one(first).await;
                assert!(found.is_some(), "found");
                drop(found);
            }
            Kind::Bulk => {
                let models = self.mirrors.iter().map(|m| {
                    UpdateOneModel::builder()
                        .namespace(self.namespace.clone())
                        .filter(version_filter(m))
                        .update(doc! { "$set": { "counter": n }, "$inc": { "__v": 1 } })
                        .build()
                });
                let done = self
                    .client
                    .bulk_write(models)
                    .ordered(false)
                    .verbose_results()
                    .await
                    .unwrap();
                assert_eq!(done.summary.matched_count as usize, self.mirrors.len());
                for m in &mut self.mirrors {
                    m.version += 1;
                }
            }
            Kind::Find => {
                let found: Vec<T> = self
                    .collection
                    .find(doc! {})
                    .await
                    .unwrap()
                    .try_collect()
                    .await
                    .unwrap();
                assert_eq!(found.len(), self.count, "every document");
                drop(found);
            }
        }
    }

    /// Untimed, after op `n`: the push taken back, as odm's side does.
    pub async fn restore(&mut self, kind: Kind) {
        if kind == Kind::Push {
            let filter = version_filter(&self.mirrors[0]);
            let update = doc! { "$pop": { "comments": 1 }, "$inc": { "__v": 1 } };
            let done = self.collection.update_one(filter, update).await.unwrap();
            assert_eq!(done.matched_count, 1, "the pop matched");
            self.mirrors[0].version += 1;
        }
    }
}
