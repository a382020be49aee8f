//! save-rules.md, "Worked examples": A and B are two copies of one stored
//! document.

use crate::common;

use common::*;
use odm::bson::Bson;
use odm::prelude::*;
use odm_testing::TestDb;

fn ints(values: &[i32]) -> Vec<Bson> {
    values.iter().map(|v| Bson::Int32(*v)).collect()
}

/// 1. A pushes 2, B pushes 4, both save: both succeed; stored `[.., 2, 4]`, version 2.
#[tokio::test]
async fn example_1_concurrent_pushes_both_land() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let mut p = post();
    p.numbers = vec![1];
    posts.create(p.clone()).await.unwrap();
    let (mut a, mut b) = two_copies(&posts, p.id).await;
    a.numbers.push(2);
    b.numbers.push(4);
    a.save().await.unwrap();
    b.save().await.unwrap();
    let stored = stored(&posts, p.id).await;
    assert_eq!(stored.get_array("numbers").unwrap(), &ints(&[1, 2, 4]));
    assert_eq!(stored.get_i32("__v").unwrap(), 2);
    assert_eq!((a.version(), b.version()), (Some(1), Some(1)));
    t.finish().await;
}

/// 2. A removes 4 and 6 (saved, version 1); B sets element 2: B fails.
#[tokio::test]
async fn example_2_positional_set_after_a_pull_fails() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let p = post();
    posts.create(p.clone()).await.unwrap();
    let (mut a, mut b) = two_copies(&posts, p.id).await;
    a.numbers.retain(|n| *n != 4 && *n != 6);
    a.save().await.unwrap();
    assert_eq!(a.version(), Some(1));
    b.numbers[2] = 33;
    assert_eq!(
        b.changes(),
        Some((
            // The positional guard: element 2 as B loaded it.
            in_place(
                doc! { "_id": p.id, "__v": 0 },
                vec![element_is("numbers", 2, 3)]
            ),
            doc! { "$set": { "numbers.2": 33 } }
        ))
    );
    let err = b.save().await.unwrap_err();
    match &err {
        Error::Version(e) => {
            assert_eq!(e.id, Bson::ObjectId(p.id));
            assert_eq!(e.version, 0);
            assert_eq!(e.modified_paths, ["numbers.2"]);
        }
        other => panic!("expected Version, got {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        format!(
            "No matching document found for id \"{}\" version 0 modifiedPaths \"numbers.2\"",
            p.id.to_hex()
        )
    );
    let stored = stored(&posts, p.id).await;
    assert_eq!(stored.get_array("numbers").unwrap(), &ints(&[1, 2, 3, 5]));
    t.finish().await;
}

/// 3. A and B each change a different element in place: both succeed, version unchanged.
#[tokio::test]
async fn example_3_different_in_place_changes_both_land() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let p = post();
    posts.create(p.clone()).await.unwrap();
    let (mut a, mut b) = two_copies(&posts, p.id).await;
    a.numbers[0] = 10;
    b.numbers[5] = 60;
    a.save().await.unwrap();
    b.save().await.unwrap();
    let stored = stored(&posts, p.id).await;
    assert_eq!(
        stored.get_array("numbers").unwrap(),
        &ints(&[10, 2, 3, 4, 5, 60])
    );
    assert_eq!(stored.get_i32("__v").unwrap(), 0);
    assert_eq!((a.version(), b.version()), (Some(0), Some(0)));
    t.finish().await;
}

/// 4. optimistic_concurrency: A sets `status`, B sets `avatar`: B fails.
#[tokio::test]
async fn example_4_optimistic_concurrency_rejects_the_second_writer() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let u = user();
    users.create(u.clone()).await.unwrap();
    let (mut a, mut b) = two_copies(&users, u.id).await;
    a.status = "APPROVED".into();
    a.save().await.unwrap();
    b.avatar = Some("https://img/a.png".into());
    let err = b.save().await.unwrap_err();
    assert!(matches!(err, Error::Version(_)));
    assert_eq!(
        err.to_string(),
        format!(
            "No matching document found for id \"{}\" version 0 modifiedPaths \"avatar\"",
            u.id.to_hex()
        )
    );
    let stored = stored(&users, u.id).await;
    assert_eq!(stored.get("avatar"), Some(&Bson::Null));
    assert_eq!(stored.get_str("status").unwrap(), "APPROVED");
    t.finish().await;
}

/// 5. optimistic_concurrency: B changes nothing but was loaded before A's save: B fails.
#[tokio::test]
async fn example_5_unchanged_stale_copy_fails() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let u = user();
    users.create(u.clone()).await.unwrap();
    let (mut a, mut b) = two_copies(&users, u.id).await;
    a.status = "APPROVED".into();
    a.save().await.unwrap();
    assert_eq!(b.changes(), None);
    assert!(matches!(b.save().await, Err(Error::Version(e)) if e.version == 0));
    t.finish().await;
}

/// 6. The document was deleted; A changes a scalar (no version effect): NotFound.
#[tokio::test]
async fn example_6_scalar_save_of_a_deleted_document_is_not_found() {
    let t = TestDb::new().await;
    let posts = Post::model(&t.db);
    let p = post();
    posts.create(p.clone()).await.unwrap();
    let mut a = posts.find_by_id(p.id).await.unwrap().unwrap();
    posts
        .collection()
        .delete_one(doc! { "_id": p.id })
        .await
        .unwrap();
    a.title = "ghost".into();
    let err = a.save().await.unwrap_err();
    match &err {
        Error::NotFound(e) => {
            assert_eq!(e.collection, "posts");
            assert_eq!(e.filter, doc! { "_id": p.id });
        }
        other => panic!("expected NotFound, got {other:?}"),
    }
    assert_eq!(
        posts.count(doc! {}).await.unwrap(),
        0,
        "nothing was upserted"
    );
    // With a version effect it is a version error instead.
    a.numbers.push(1);
    assert!(matches!(a.save().await, Err(Error::Version(_))));
    t.finish().await;
}
