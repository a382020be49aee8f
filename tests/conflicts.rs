//! Conflicts a team can explain (issue 34): a version error names what the
//! store changed since the stale copy loaded (`stored_changes`, one read
//! after the refused write, none on success), and `Doc::rebase` re-applies
//! the copy's changes onto the store when no path overlaps, refusing and
//! changing nothing when one does.

use crate::common;

use common::Monitored;
use odm::__private::BulkPath;
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "profiles", optimistic_concurrency)]
pub struct Profile {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub status: String,
    pub avatar: Option<String>,
    pub meta: Place,
    pub tags: Vec<String>,
    pub comments: Vec<Remark>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Place {
    pub city: String,
    pub zip: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Remark {
    #[serde(rename = "_id")]
    pub id: i32,
    pub text: String,
}

fn profile() -> Profile {
    Profile {
        id: ObjectId::new(),
        status: "NEW".into(),
        avatar: None,
        meta: Place {
            city: "Oslo".into(),
            zip: "0150".into(),
        },
        tags: vec!["a".into(), "b".into()],
        comments: vec![
            Remark {
                id: 1,
                text: "hi".into(),
            },
            Remark {
                id: 2,
                text: "yo".into(),
            },
        ],
    }
}

/// Two copies of one stored profile.
async fn two_copies(profiles: &Model<Profile>) -> (Doc<Profile>, Doc<Profile>) {
    let id = profiles.create(profile()).await.unwrap().id;
    let a = profiles.find_by_id(id).await.unwrap().unwrap();
    let b = profiles.find_by_id(id).await.unwrap().unwrap();
    (a, b)
}

fn version_error(outcome: odm::Result<()>) -> Box<VersionError> {
    match outcome {
        Err(Error::Version(e)) => e,
        other => panic!("expected a version error, got {other:?}"),
    }
}

use odm::VersionError;

fn strings(paths: &[&str]) -> Vec<String> {
    paths.iter().map(|p| p.to_string()).collect()
}

#[tokio::test]
async fn a_version_error_names_both_sides_at_the_save_rules_depth() {
    let t = TestDb::new().await;
    let profiles = Profile::model(&t.db);

    // Nested fields and a scalar on their side, another field on ours.
    let (mut a, mut b) = two_copies(&profiles).await;
    a.status = "ACTIVE".into();
    a.meta.city = "Bergen".into();
    a.save().await.unwrap();
    b.avatar = Some("b.png".into());
    let e = version_error(b.save().await);
    assert_eq!(e.modified_paths(), ["avatar"]);
    assert_eq!(
        e.stored_changes(),
        Some(&strings(&["status", "meta.city"])[..])
    );
    // The text stays Mongoose's, with no value.
    assert_eq!(
        e.to_string(),
        format!(
            "No matching document found for id \"{}\" version 0 modifiedPaths \"avatar\"",
            b.id.to_hex()
        )
    );
    assert!(!e.to_string().contains("Bergen"));

    // An element edited in place is its path; a push is the array.
    let (mut a, mut b) = two_copies(&profiles).await;
    a.comments[1].text = "edited".into();
    a.tags.push("c".into());
    a.save().await.unwrap();
    b.status = "BANNED".into();
    let e = version_error(b.save().await);
    assert_eq!(e.modified_paths(), ["status"]);
    assert_eq!(
        e.stored_changes(),
        Some(&strings(&["tags", "comments.1.text"])[..])
    );

    // An array rewritten whole (no element kept its place) is the array.
    let (mut a, mut b) = two_copies(&profiles).await;
    a.tags = vec!["x".into(), "y".into()];
    a.save().await.unwrap();
    b.meta.zip = "5003".into();
    let e = version_error(b.save().await);
    assert_eq!(e.modified_paths(), ["meta.zip"]);
    assert_eq!(e.stored_changes(), Some(&strings(&["tags"])[..]));
    t.finish().await;
}

#[tokio::test]
async fn fields_another_writer_added_or_removed_are_named_and_odm_s_keys_never() {
    let t = TestDb::new().await;
    let profiles = Profile::model(&t.db);
    let (_, mut b) = two_copies(&profiles).await;
    // Another program adds a field the model does not know, removes the
    // avatar (null in the copy) and bumps the version.
    profiles
        .collection()
        .update_one(
            doc! { "_id": b.id },
            doc! { "$set": { "source": "import" }, "$unset": { "avatar": "" }, "$inc": { "__v": 1 } },
        )
        .await
        .unwrap();
    b.status = "ACTIVE".into();
    let e = version_error(b.save().await);
    assert_eq!(
        e.stored_changes(),
        Some(&strings(&["source", "avatar"])[..])
    );

    // A stale copy that changed nothing (optimistic_concurrency checks it).
    let (mut a, b) = two_copies(&profiles).await;
    a.tags.pop();
    a.save().await.unwrap();
    let mut b = b;
    let e = version_error(b.save().await);
    assert!(e.modified_paths().is_empty());
    assert_eq!(e.stored_changes(), Some(&strings(&["tags"])[..]));

    // The document is gone: nothing to compare with.
    let (mut a, mut b) = two_copies(&profiles).await;
    a.delete().await.unwrap();
    b.status = "ACTIVE".into();
    let e = version_error(b.save().await);
    assert_eq!(e.stored_changes(), None);
    t.finish().await;
}

#[tokio::test]
async fn one_read_after_a_refusal_and_none_after_a_success() {
    let m = Monitored::new("conflicts-reads").await;
    let profiles = Profile::model(m.db());
    let (mut a, mut b) = two_copies(&profiles).await;
    m.monitor.clear();
    a.status = "ACTIVE".into();
    a.save().await.unwrap();
    let names: Vec<String> = m.monitor.all().iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, ["update"], "a save that lands reads nothing");
    m.monitor.clear();
    b.avatar = Some("x".into());
    let e = version_error(b.save().await);
    assert_eq!(e.stored_changes(), Some(&strings(&["status"])[..]));
    let names: Vec<String> = m.monitor.all().iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, ["update", "find"], "one read after the refusal");
    m.finish().await;
}

#[tokio::test]
async fn default_mode_guards_name_the_array_the_other_copy_changed() {
    let t = TestDb::new().await;
    let posts = common::Post::model(&t.db);
    let id = posts.create(common::post()).await.unwrap().id;
    let mut a = posts.find_by_id(id).await.unwrap().unwrap();
    let mut b = posts.find_by_id(id).await.unwrap().unwrap();
    // A pulls (bumps the version); B edits an element in place (checks it).
    a.numbers.retain(|n| *n != 2);
    a.save().await.unwrap();
    b.numbers[0] = 10;
    let e = version_error(b.save().await);
    assert_eq!(e.modified_paths(), ["numbers.0"]);
    assert_eq!(e.stored_changes(), Some(&strings(&["numbers"])[..]));
    t.finish().await;
}

#[tokio::test]
async fn bulk_saves_name_the_stored_changes_of_each_stale_doc_on_both_paths() {
    let t = TestDb::new().await;
    let profiles = Profile::model(&t.db);
    for path in [BulkPath::BulkWrite, BulkPath::Commands] {
        let (mut a1, b1) = two_copies(&profiles).await;
        let (mut a2, b2) = two_copies(&profiles).await;
        let (_, b3) = two_copies(&profiles).await;
        a1.meta.city = "Bergen".into();
        a1.save().await.unwrap();
        a2.comments[0].text = "edited".into();
        a2.save().await.unwrap();
        let mut batch = vec![b1, b2, b3];
        for doc in batch.iter_mut() {
            doc.status = "BULK".into();
        }
        let outcomes = profiles.bulk_save(&mut batch).path(path).await.unwrap();
        let mut outcomes = outcomes.into_iter();
        let e = version_error(outcomes.next().unwrap());
        assert_eq!(
            e.stored_changes(),
            Some(&strings(&["meta.city"])[..]),
            "{path:?}"
        );
        let e = version_error(outcomes.next().unwrap());
        assert_eq!(
            e.stored_changes(),
            Some(&strings(&["comments.0.text"])[..]),
            "{path:?}"
        );
        assert!(outcomes.next().unwrap().is_ok(), "{path:?}");
    }
    t.finish().await;
}

#[tokio::test]
async fn rebase_re_applies_disjoint_changes_and_the_next_save_sends_only_them() {
    let t = TestDb::new().await;
    let profiles = Profile::model(&t.db);
    let (mut a, mut b) = two_copies(&profiles).await;
    a.status = "ACTIVE".into();
    a.meta.zip = "5003".into();
    a.comments[1].text = "edited".into();
    a.save().await.unwrap();

    b.avatar = Some("b.png".into());
    b.meta.city = "Bergen".into();
    b.tags.push("c".into());
    let e = version_error(b.save().await);
    assert_eq!(e.modified_paths(), ["avatar", "meta.city", "tags"]);
    b.rebase().await.unwrap();
    assert_eq!(b.version(), Some(1));
    // Theirs and mine together in the value.
    assert_eq!(b.status, "ACTIVE");
    assert_eq!(
        b.meta,
        Place {
            city: "Bergen".into(),
            zip: "5003".into()
        }
    );
    assert_eq!(b.comments[1].text, "edited");
    assert_eq!(b.tags, ["a", "b", "c"]);
    // Only this copy's changes go out, checked against the stored version.
    assert_eq!(
        b.changes(),
        Some((
            doc! { "_id": b.id, "__v": 1 },
            doc! {
                "$set": { "avatar": "b.png", "meta.city": "Bergen" },
                "$push": { "tags": { "$each": ["c"] } },
                "$inc": { "__v": 1 },
            }
        ))
    );
    b.save().await.unwrap();
    let stored = profiles.find_by_id(b.id).await.unwrap().unwrap();
    assert_eq!(*stored, *b);
    assert_eq!(stored.version(), Some(2));
    t.finish().await;
}

/// One copy's edit of a profile.
type Edit = fn(&mut Profile);

#[tokio::test]
async fn rebase_refuses_an_overlap_naming_it_and_leaves_the_doc_as_it_was() {
    let t = TestDb::new().await;
    let profiles = Profile::model(&t.db);
    let cases: [(Edit, Edit, &[&str]); 4] = [
        // The same nested field.
        (
            |p| p.meta.city = "Bergen".into(),
            |p| p.meta.city = "Trondheim".into(),
            &["meta.city"],
        ),
        // A whole sub-document against a field under it.
        (
            |p| p.meta.zip = "1".into(),
            |p| {
                p.meta = Place {
                    city: "X".into(),
                    zip: "2".into(),
                }
            },
            &["meta.zip"],
        ),
        // A push against an element edited in place.
        (
            |p| p.tags.push("z".into()),
            |p| p.tags[0] = "A".into(),
            &["tags"],
        ),
        // An element edited against the same element.
        (
            |p| p.comments[0].text = "theirs".into(),
            |p| p.comments[0].text = "mine".into(),
            &["comments.0.text"],
        ),
    ];
    for (theirs, mine, overlap) in cases {
        let (mut a, mut b) = two_copies(&profiles).await;
        theirs(&mut a);
        a.status = "ACTIVE".into();
        a.save().await.unwrap();
        mine(&mut b);
        let value = (*b).clone();
        let changes = b.changes();
        let paths = b.modified_paths();
        let e = match b.rebase().await {
            Err(Error::Version(e)) => e,
            other => panic!("expected the overlap to be refused, got {other:?}"),
        };
        assert_eq!(e.stored_changes(), Some(&strings(overlap)[..]));
        assert_eq!(e.modified_paths(), paths);
        // Exactly as it was: value, changes, version.
        assert_eq!(*b, value);
        assert_eq!(b.changes(), changes);
        assert_eq!(b.version(), Some(0));
        // The stale save still fails; a reload then takes theirs.
        assert!(matches!(b.save().await, Err(Error::Version(_))));
    }
    t.finish().await;
}

#[tokio::test]
async fn rebase_of_a_gone_or_new_document_is_not_found_and_takes_a_session() {
    let t = TestDb::new().await;
    let profiles = Profile::model(&t.db);
    let (mut a, mut b) = two_copies(&profiles).await;
    a.delete().await.unwrap();
    b.status = "X".into();
    let before = b.changes();
    assert!(matches!(b.rebase().await, Err(Error::NotFound(_))));
    assert_eq!(b.changes(), before);
    let mut new = profiles.new_doc(profile());
    assert!(matches!(new.rebase().await, Err(Error::NotFound(_))));

    // Nothing pending: a rebase is a reload at the stored version.
    let (mut a, mut b) = two_copies(&profiles).await;
    a.status = "ACTIVE".into();
    a.save().await.unwrap();
    let mut session = t.client.start_session().await.unwrap();
    b.rebase().session(&mut session).await.unwrap();
    assert_eq!(
        (b.status.as_str(), b.version(), b.changes()),
        ("ACTIVE", Some(1), None)
    );
    // The client's shutdown waits for its sessions.
    drop(session);
    t.finish().await;
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "stamped", timestamps)]
#[serde(rename_all = "camelCase")]
pub struct Stamped {
    #[serde(rename = "_id")]
    pub id: i64,
    pub title: String,
    pub body: String,
    pub created_at: Option<odm::bson::DateTime>,
    pub updated_at: Option<odm::bson::DateTime>,
}

#[tokio::test]
async fn rebase_keeps_odm_s_timestamps_out_of_the_overlap() {
    let t = TestDb::new().await;
    let notes = Stamped::model(&t.db);
    notes
        .create(Stamped {
            id: 1,
            title: "t".into(),
            body: "b".into(),
            created_at: None,
            updated_at: None,
        })
        .await
        .unwrap();
    let mut a = notes.find_by_id(1).await.unwrap().unwrap();
    let mut b = notes.find_by_id(1).await.unwrap().unwrap();
    a.title = "theirs".into();
    a.increment();
    a.save().await.unwrap();
    b.body = "mine".into();
    b.increment();
    let e = version_error(b.save().await);
    // Their save stamped updatedAt: the store's truth, named.
    assert_eq!(
        e.stored_changes(),
        Some(&strings(&["title", "updatedAt"])[..])
    );
    b.rebase().await.unwrap();
    b.save().await.unwrap();
    let stored = notes.find_by_id(1).await.unwrap().unwrap();
    assert_eq!(
        (stored.title.as_str(), stored.body.as_str()),
        ("theirs", "mine")
    );
    t.finish().await;
}
