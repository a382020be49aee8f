//! Every write odm sends keeps the version contract: a tracked copy loaded
//! before an upsert, a claim, an update_with_retry or an update_many fails
//! its version-checked save with `Error::Version`, and the stored document
//! keeps the other write. A default-mode copy sees what it sees after a
//! bumping save by another copy: its unchecked `$set` of another field
//! lands beside the write, its checked edits fail, its pushes land.

use crate::common;

use common::{post, stored, user, Post, User};
use mongodb::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;

/// The write paths under test, each changing a document another copy holds.
#[derive(Debug, Clone, Copy)]
enum Write {
    Upsert,
    Claim,
    UpdateWithRetry,
    UpdateMany,
}

const WRITES: [Write; 4] = [
    Write::Upsert,
    Write::Claim,
    Write::UpdateWithRetry,
    Write::UpdateMany,
];

impl Write {
    /// The value this write stores in the changed field.
    fn value(self) -> String {
        format!("{self:?}")
    }

    /// Sets `field` of the document `id` to [`value`](Write::value), the
    /// way this write path does.
    async fn apply<T: odm::Document>(
        self,
        model: &Model<T>,
        id: ObjectId,
        field: &str,
        set: impl FnMut(&mut T, String) + Send,
    ) {
        let value = self.value();
        let mut set = set;
        match self {
            Write::Upsert => {
                let doc = model
                    .upsert(doc! { "_id": id })
                    .set(doc! { field: &value })
                    .await
                    .unwrap();
                assert_eq!(doc.version(), Some(1), "the upsert bumped");
            }
            Write::Claim => {
                let claimed = model
                    .claim(doc! { "_id": id }, doc! { "$set": { field: &value } })
                    .await
                    .unwrap();
                assert_eq!(claimed.unwrap().version(), Some(1));
            }
            Write::UpdateWithRetry => {
                let doc = model
                    .update_with_retry(id, 3, |t: &mut T| {
                        set(t, value.clone());
                        Ok(())
                    })
                    .await
                    .unwrap();
                assert_eq!(doc.version(), Some(1));
            }
            Write::UpdateMany => {
                let report = model
                    .update_many(doc! { "_id": id }, doc! { "$set": { field: &value } })
                    .await
                    .unwrap();
                assert_eq!((report.matched(), report.modified()), (1, 1));
            }
        }
    }
}

fn version(stored: &BsonDocument) -> i64 {
    match stored.get("__v") {
        Some(Bson::Int32(v)) => i64::from(*v),
        Some(Bson::Int64(v)) => *v,
        other => panic!("version {other:?}"),
    }
}

#[tokio::test]
async fn an_optimistic_copy_loaded_before_any_write_fails_with_a_version_error() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    for write in WRITES {
        let created = users.create(user()).await.unwrap();
        let id = created.id;
        // Two stale copies: one that changes a field, one that changes
        // nothing (optimistic_concurrency checks it too).
        let mut changed = users.find_by_id(id).await.unwrap().unwrap();
        let mut unchanged = users.find_by_id(id).await.unwrap().unwrap();

        write
            .apply(&users, id, "status", |u: &mut User, v| u.status = v)
            .await;

        changed.avatar = Some("stale.png".into());
        let e = changed.save().await.unwrap_err();
        let Error::Version(v) = &e else {
            panic!("{write:?}: {e:?}")
        };
        assert_eq!(v.version, 0, "{write:?}");
        assert_eq!(
            e.to_string(),
            format!(
                "No matching document found for id \"{}\" version 0 modifiedPaths \"avatar\"",
                id.to_hex()
            ),
            "{write:?}"
        );
        assert!(changed.modified_paths().contains(&"avatar".to_string()));
        let e = unchanged.save().await.unwrap_err();
        assert!(matches!(e, Error::Version(_)), "{write:?}: {e:?}");

        let doc = stored(&users, id).await;
        assert_eq!(doc.get_str("status").unwrap(), write.value(), "{write:?}");
        assert_eq!(
            doc.get("avatar"),
            Some(&Bson::Null),
            "{write:?}: not overwritten"
        );
        assert_eq!(version(&doc), 1, "{write:?}");

        // Reloaded, the copy saves on top of the write.
        changed.reload().await.unwrap();
        assert_eq!(changed.status, write.value());
        changed.avatar = Some("fresh.png".into());
        changed.save().await.unwrap();
        let doc = stored(&users, id).await;
        assert_eq!(doc.get_str("status").unwrap(), write.value());
        assert_eq!(doc.get_str("avatar").unwrap(), "fresh.png");
    }
    t.finish().await;
}

/// Default mode: the write bumped, so a copy loaded before it is stale
/// wherever it checks the version (a positional edit, a whole-array
/// rewrite) and lands where it does not (a `$set` of another field, an
/// append), exactly as after another copy's bumping save.
#[tokio::test]
async fn a_default_mode_copy_loaded_before_any_write_sees_the_save_rules() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    for write in WRITES {
        let id = posts.create(post()).await.unwrap().id;
        let mut scalar = posts.find_by_id(id).await.unwrap().unwrap();
        let mut positional = posts.find_by_id(id).await.unwrap().unwrap();
        let mut rewrite = posts.find_by_id(id).await.unwrap().unwrap();
        let mut append = posts.find_by_id(id).await.unwrap().unwrap();

        write
            .apply(&posts, id, "title", |p: &mut Post, v| p.title = v)
            .await;

        // A `$set` of another field checks nothing: it lands beside the write.
        scalar.meta.city = "Bergen".into();
        scalar.save().await.unwrap();
        // An edit in place checks the version: the write bumped it.
        positional.numbers[2] = 30;
        let e = positional.save().await.unwrap_err();
        assert!(matches!(e, Error::Version(_)), "{write:?}: {e:?}");
        // A reorder rewrites the whole array: checked too.
        rewrite.numbers.reverse();
        let e = rewrite.save().await.unwrap_err();
        assert!(matches!(e, Error::Version(_)), "{write:?}: {e:?}");
        // An append commutes with the write: it lands and bumps.
        append.numbers.push(7);
        append.save().await.unwrap();

        let doc = stored(&posts, id).await;
        assert_eq!(doc.get_str("title").unwrap(), write.value(), "{write:?}");
        assert_eq!(
            doc.get_document("meta").unwrap().get_str("city").unwrap(),
            "Bergen"
        );
        let numbers: Vec<i32> = doc
            .get_array("numbers")
            .unwrap()
            .iter()
            .map(|n| n.as_i32().unwrap())
            .collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7], "{write:?}");
        assert_eq!(version(&doc), 2, "{write:?}: the write and the append");
    }
    t.finish().await;
}

/// `delete_many` removes what a copy holds: its save reports it, checked
/// (`Error::Version`) or not (`Error::NotFound`).
#[tokio::test]
async fn a_copy_of_a_document_deleted_by_delete_many_is_told() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let posts = Post::model(&t.db);
    let uid = users.create(user()).await.unwrap().id;
    let pid = posts.create(post()).await.unwrap().id;
    let mut u = users.find_by_id(uid).await.unwrap().unwrap();
    let mut p = posts.find_by_id(pid).await.unwrap().unwrap();
    assert_eq!(users.delete_many(doc! { "_id": uid }).await.unwrap(), 1);
    assert_eq!(posts.delete_many(doc! { "_id": pid }).await.unwrap(), 1);
    u.status = "LATE".into();
    assert!(matches!(u.save().await.unwrap_err(), Error::Version(_)));
    p.title = "late".into();
    assert!(matches!(p.save().await.unwrap_err(), Error::NotFound(_)));
    assert_eq!(users.count(doc! {}).await.unwrap(), 0);
    assert_eq!(posts.count(doc! {}).await.unwrap(), 0);
    t.finish().await;
}

/// `keep_version` is the documented opt-out: the stale copy's save is not
/// refused and overwrites the write. The test proves the opt-out does what
/// its docs warn.
#[tokio::test]
async fn keep_version_lets_a_stale_copy_overwrite() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let id = users.create(user()).await.unwrap().id;
    let mut stale = users.find_by_id(id).await.unwrap().unwrap();
    users
        .update_many(doc! { "_id": id }, doc! { "$set": { "status": "MANY" } })
        .keep_version()
        .await
        .unwrap();
    stale.status = "STALE".into();
    stale.save().await.unwrap();
    assert_eq!(stored(&users, id).await.get_str("status").unwrap(), "STALE");
    t.finish().await;
}

/// Many tasks, many rounds: stale copies saved while `update_many` runs.
/// Every round, each copy's save either landed before the update (the
/// update then wrote over it, bumping) or failed with `Error::Version`:
/// the update's field is never lost, and the counts add up.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stale_saves_racing_update_many_never_overwrite_it() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let (mut landed, mut refused) = (0, 0);
    for round in 0..10 {
        let id = users.create(user()).await.unwrap().id;
        let mut copies = Vec::new();
        for _ in 0..8 {
            copies.push(users.find_by_id(id).await.unwrap().unwrap());
        }
        let mut tasks = Vec::new();
        for (i, mut copy) in copies.into_iter().enumerate() {
            tasks.push(tokio::spawn(async move {
                // The field the update writes: without the bump a copy
                // saving after the update would overwrite it.
                copy.avatar = Some(format!("copy{i}"));
                copy.save().await
            }));
        }
        let report = users
            .update_many(
                doc! { "_id": id },
                doc! { "$set": { "avatar": format!("r{round}") } },
            )
            .await
            .unwrap();
        assert_eq!(report.matched(), 1);
        let mut ok = 0;
        for task in tasks {
            match task.await.unwrap() {
                Ok(()) => ok += 1,
                Err(Error::Version(_)) => refused += 1,
                Err(e) => panic!("{e:?}"),
            }
        }
        assert!(ok <= 1, "round {round}: one copy at most wins version 0");
        landed += ok;
        let doc = stored(&users, id).await;
        assert_eq!(
            doc.get_str("avatar").unwrap(),
            format!("r{round}"),
            "the update's field is never overwritten"
        );
        assert_eq!(version(&doc), 1 + ok as i64, "round {round}");
    }
    assert_eq!(landed + refused, 80);
    println!("{landed} stale saves landed before the update, {refused} refused");
    t.finish().await;
}
