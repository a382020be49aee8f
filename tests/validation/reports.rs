//! Every failure of a document reported together, each at its BSON path
//! (renames, nested structs, array elements, map keys), on insert and on
//! update.

use mongodb::bson::doc;
use odm::prelude::*;
use odm_testing::TestDb;

use crate::validation::{failures, pairs, valid, Account, Address, Comment};

pub async fn every_failure_is_reported_together() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let mut a = valid(7);
    a.age = 12;
    a.user_name = "admin-account-x".into();
    a.status = "GONE".into();
    a.avatar = None;
    a.comments = vec![
        Comment::new("ok"),
        Comment::new(""),
        Comment::new("ok"),
        Comment {
            text: "this comment is far too long".into(),
            author: None,
            likes: 2,
        },
    ];
    a.address = Some(Address {
        city: String::new(),
        zip: "x".into(),
    });
    a.pinned.insert("top".into(), Comment::new(""));
    let err = accounts.create(a.clone()).await.unwrap_err();
    let expected = [
        ("age", "must be at least 18 (is 12)"),
        ("userName", "must be at most 12 characters long (is 15)"),
        (
            "status",
            "must be one of \"PENDING\", \"APPROVED\", \"BANNED\" (is \"GONE\")",
        ),
        ("avatar", "is required"),
        ("address.city", "must be at least 1 character long (is 0)"),
        ("address.zipCode", "`x` is not a five-digit zip code"),
        (
            "comments.1.text",
            "must be at least 1 character long (is 0)",
        ),
        (
            "comments.3.text",
            "must be at most 20 characters long (is 28)",
        ),
        ("comments.3.author", "required on a liked comment"),
        (
            "pinned.top.text",
            "must be at least 1 character long (is 0)",
        ),
    ];
    // The refused values are hidden unless values are shown.
    assert_eq!(
        err.to_string(),
        "validation failed: age: must be at least 18 (is ?); \
         userName: must be at most 12 characters long (is 15); \
         status: must be one of \"PENDING\", \"APPROVED\", \"BANNED\" (is ?); \
         avatar: is required; \
         address.city: must be at least 1 character long (is 0); \
         address.zipCode: `x` is not a five-digit zip code; \
         comments.1.text: must be at least 1 character long (is 0); \
         comments.3.text: must be at most 20 characters long (is 28); \
         comments.3.author: required on a liked comment; \
         pinned.top.text: must be at least 1 character long (is 0)"
    );
    assert_eq!(
        crate::validation::common::with_values(|| err.to_string()),
        "validation failed: age: must be at least 18 (is 12); \
         userName: must be at most 12 characters long (is 15); \
         status: must be one of \"PENDING\", \"APPROVED\", \"BANNED\" (is \"GONE\"); \
         avatar: is required; \
         address.city: must be at least 1 character long (is 0); \
         address.zipCode: `x` is not a five-digit zip code; \
         comments.1.text: must be at least 1 character long (is 0); \
         comments.3.text: must be at most 20 characters long (is 28); \
         comments.3.author: required on a liked comment; \
         pinned.top.text: must be at least 1 character long (is 0)"
    );
    assert_eq!(failures(Err(err)), pairs(&expected));
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 0);
    t.finish().await;
}

pub async fn nested_and_array_paths_on_update() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let mut a = valid(3);
    a.comments = (0..5).map(|i| Comment::new(&format!("c{i}"))).collect();
    let mut doc = accounts.create(a).await.unwrap();

    doc.comments[3].text = String::new();
    assert_eq!(
        failures(doc.save().await),
        pairs(&[(
            "comments.3.text",
            "must be at least 1 character long (is 0)"
        )])
    );
    doc.comments[3].text = "fixed".into();
    doc.comments[1].author = None;
    doc.comments[1].likes = 1;
    doc.address.as_mut().unwrap().zip = "999".into();
    assert_eq!(
        failures(doc.save().await),
        pairs(&[
            ("address.zipCode", "`999` is not a five-digit zip code"),
            ("comments.1.author", "required on a liked comment"),
        ])
    );
    // Fixed: the same Doc saves its pending changes in one update.
    doc.comments[1].author = Some("bob".into());
    doc.address.as_mut().unwrap().zip = "99999".into();
    doc.save().await.unwrap();
    let stored = accounts.find_by_id(3).await.unwrap().unwrap();
    assert_eq!(stored.comments[3].text, "fixed");
    assert_eq!(stored.comments[1].likes, 1);
    assert_eq!(stored.address.as_ref().unwrap().zip, "99999");
    t.finish().await;
}
