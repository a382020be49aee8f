//! Validators against the server: every built-in passing and failing,
//! custom field and container validators, every failure reported at once
//! with BSON paths (renames, nested structs, array elements, map keys), and
//! nothing sent when validation fails.

mod common;

use std::collections::BTreeMap;

use common::Monitored;
use mongodb::bson::{doc, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", validate = Self::score_rule, validate = Self::name_rule)]
#[serde(rename_all = "camelCase")]
struct Account {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(min = 18, max = 130)]
    age: i32,
    #[odm(min = 0, max = 1.5)]
    ratio: f64,
    #[odm(min_len = 3, max_len = 12)]
    user_name: String,
    #[odm(max_len = 3)]
    tags: Vec<String>,
    #[odm(one_of("PENDING", "APPROVED", "BANNED"))]
    status: String,
    #[odm(required, validate = https_url, validate = no_spaces)]
    avatar: Option<String>,
    #[odm(min = -10)]
    score: Option<i64>,
    #[odm(nested)]
    address: Option<Address>,
    #[odm(nested)]
    comments: Vec<Comment>,
    #[odm(nested)]
    pinned: BTreeMap<String, Comment>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Validate)]
struct Address {
    #[odm(min_len = 1)]
    city: String,
    #[serde(rename = "zipCode")]
    #[odm(validate = five_digits)]
    zip: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Validate)]
#[odm(validate = Self::liked_needs_author)]
struct Comment {
    #[odm(min_len = 1, max_len = 20)]
    text: String,
    author: Option<String>,
    #[odm(min = 0)]
    likes: u32,
}

impl Comment {
    fn new(text: &str) -> Comment {
        Comment {
            text: text.into(),
            author: Some("ann".into()),
            likes: 0,
        }
    }

    fn liked_needs_author(&self) -> Result<(), ValidationError> {
        if self.likes > 0 && self.author.is_none() {
            return Err(ValidationError::new(
                "author",
                "required on a liked comment",
            ));
        }
        Ok(())
    }
}

impl Account {
    fn score_rule(&self) -> Result<(), ValidationError> {
        if self.status == "BANNED" && self.score.is_some() {
            return Err(ValidationError::new("score", "must be empty when BANNED"));
        }
        Ok(())
    }

    fn name_rule(&self) -> Result<(), ValidationError> {
        if self.user_name == "admin" {
            return Err(ValidationError::new("", "the name `admin` is reserved"));
        }
        Ok(())
    }
}

fn https_url(v: &Option<String>) -> Result<(), String> {
    match v {
        Some(url) if !url.starts_with("https://") => Err("must be an https URL".into()),
        _ => Ok(()),
    }
}

fn no_spaces(v: &Option<String>) -> Result<(), String> {
    match v {
        Some(url) if url.contains(' ') => Err("must not contain spaces".into()),
        _ => Ok(()),
    }
}

fn five_digits(v: &String) -> Result<(), String> {
    if v.len() == 5 && v.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(format!("`{v}` is not a five-digit zip code"))
    }
}

fn valid(id: i64) -> Account {
    Account {
        id,
        age: 30,
        ratio: 0.5,
        user_name: "ann".into(),
        tags: vec!["a".into()],
        status: "PENDING".into(),
        avatar: Some("https://img/a.png".into()),
        score: None,
        address: Some(Address {
            city: "Oslo".into(),
            zip: "01500".into(),
        }),
        comments: vec![Comment::new("hi")],
        pinned: BTreeMap::new(),
    }
}

fn failures(result: odm::Result<()>) -> Vec<(String, String)> {
    match result {
        Err(Error::Validation(e)) => e
            .errors()
            .iter()
            .map(|e| {
                // The refused value, as the text shows it when values are on.
                let value = e.value().map(|v| format!(" (is {v})"));
                (
                    e.path().to_string(),
                    format!("{}{}", e.message(), value.unwrap_or_default()),
                )
            })
            .collect(),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, m)| (p.to_string(), m.to_string()))
        .collect()
}

type Mutation = fn(&mut Account);

#[tokio::test]
async fn each_builtin_passes_at_its_bound_and_fails_past_it() {
    let m = Monitored::new("builtins").await;
    let accounts = Account::model(m.db());
    let mut doc = accounts.create(valid(1)).await.unwrap();

    // Values on the bound are valid, and are saved.
    let edge: &[Mutation] = &[
        |a| a.age = 18,
        |a| a.age = 130,
        |a| a.ratio = 0.0,
        |a| a.ratio = 1.5,
        |a| a.user_name = "abc".into(),
        |a| a.user_name = "żółw-żółw-żó".into(), // 12 characters, 20 bytes
        |a| a.tags = vec!["x".into(); 3],
        |a| a.tags = vec![],
        |a| a.status = "APPROVED".into(),
        |a| a.score = Some(-10),
        |a| a.score = None,
        |a| a.address = None,
    ];
    for change in edge {
        change(&mut doc);
        doc.save().await.unwrap();
    }
    let stored = accounts.find_by_id(1).await.unwrap().unwrap();
    assert_eq!(*stored, *doc);

    let cases: &[(Mutation, &str, &str)] = &[
        (|a| a.age = 17, "age", "must be at least 18 (is 17)"),
        (|a| a.age = 131, "age", "must be at most 130 (is 131)"),
        (
            |a| a.ratio = -0.25,
            "ratio",
            "must be at least 0 (is -0.25)",
        ),
        (|a| a.ratio = 1.75, "ratio", "must be at most 1.5 (is 1.75)"),
        (
            |a| a.user_name = "ab".into(),
            "userName",
            "must be at least 3 characters long (is 2)",
        ),
        (
            |a| a.user_name = "abcdefghijklm".into(),
            "userName",
            "must be at most 12 characters long (is 13)",
        ),
        (
            |a| a.tags = vec!["x".into(); 4],
            "tags",
            "must have at most 3 items (has 4)",
        ),
        (
            |a| a.status = "approved".into(),
            "status",
            "must be one of \"PENDING\", \"APPROVED\", \"BANNED\" (is \"approved\")",
        ),
        (|a| a.avatar = None, "avatar", "is required"),
        (
            |a| a.score = Some(-11),
            "score",
            "must be at least -10 (is -11)",
        ),
    ];
    for (change, path, message) in cases {
        let before: Account = (*doc).clone();
        change(&mut doc);
        m.monitor.clear();
        assert_eq!(
            failures(doc.save().await),
            pairs(&[(path, message)]),
            "{path}"
        );
        assert_eq!(
            m.monitor.writes(),
            Vec::<String>::new(),
            "{path}: nothing sent"
        );
        // Nothing was stored, and the Doc keeps the change pending.
        let stored = accounts.find_by_id(1).await.unwrap().unwrap();
        assert_eq!(*stored, before, "{path}");
        assert!(doc.changes().is_some(), "{path}");
        doc.reload().await.unwrap();
    }
    // NaN is neither at least 0 nor at most 1.5.
    doc.ratio = f64::NAN;
    assert_eq!(
        failures(doc.save().await),
        pairs(&[
            ("ratio", "must be at least 0 (is NaN)"),
            ("ratio", "must be at most 1.5 (is NaN)")
        ])
    );
    m.finish().await;
}

#[tokio::test]
async fn custom_field_and_container_validators_run() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);

    let mut a = valid(1);
    a.avatar = Some("http://img/a.png".into());
    let err = accounts.create(a).await.map(|_| ());
    assert_eq!(failures(err), pairs(&[("avatar", "must be an https URL")]));

    // Two custom validators on one field both run, in the order written.
    let mut a = valid(1);
    a.avatar = Some("http://img/a b.png".into());
    assert_eq!(
        failures(accounts.create(a).await.map(|_| ())),
        pairs(&[
            ("avatar", "must be an https URL"),
            ("avatar", "must not contain spaces")
        ])
    );

    // Container validators: a path relative to the document, or the whole document.
    let mut a = valid(1);
    a.status = "BANNED".into();
    a.score = Some(3);
    assert_eq!(
        failures(accounts.create(a).await.map(|_| ())),
        pairs(&[("score", "must be empty when BANNED")])
    );
    let mut a = valid(1);
    a.user_name = "admin".into();
    let err = accounts.create(a).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "validation failed: the name `admin` is reserved"
    );
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 0);

    // `validate()` runs the same rules without a server.
    let mut a = valid(1);
    a.address.as_mut().unwrap().zip = "1234".into();
    let e = a.validate().unwrap_err();
    assert_eq!(e.paths(), ["address.zipCode"]);
    assert_eq!(
        e.errors()[0].message(),
        "`1234` is not a five-digit zip code"
    );
    assert!(valid(1).validate().is_ok());
    t.finish().await;
}

#[tokio::test]
async fn every_failure_is_reported_together() {
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
        common::with_values(|| err.to_string()),
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

#[tokio::test]
async fn nested_and_array_paths_on_update() {
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

fn stored_raw(doc: Option<BsonDocument>) -> BsonDocument {
    doc.expect("stored")
}

#[tokio::test]
async fn nothing_is_sent_when_validation_fails() {
    let m = Monitored::new("validation").await;
    let accounts = Account::model(m.db());
    let sent = || m.monitor.writes();

    // create: an invalid value is not inserted.
    let mut bad = valid(1);
    bad.age = 3;
    let err = accounts.create(bad).await.map(|_| ());
    assert_eq!(
        failures(err),
        pairs(&[("age", "must be at least 18 (is 3)")])
    );
    let mut new = accounts.new_doc(valid(1));
    new.tags = vec!["t".into(); 9];
    assert_eq!(failures(new.save().await).len(), 1);
    assert!(sent().is_empty(), "{:?}", sent());
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 0);

    // A valid insert is seen by the monitor.
    let mut doc = accounts.create(valid(1)).await.unwrap();
    assert_eq!(sent(), ["insert"]);
    let before = stored_raw(
        accounts
            .collection()
            .find_one(doc! {"_id": 1})
            .await
            .unwrap(),
    );

    // update: an invalid change (scalar, array push, nested) sends nothing.
    doc.age = 200;
    doc.tags.push("b".into());
    doc.comments.push(Comment::new(""));
    assert_eq!(failures(doc.save().await).len(), 2);
    doc.increment();
    assert_eq!(failures(doc.save().await).len(), 2);
    assert_eq!(sent(), ["insert"]);
    let after = stored_raw(
        accounts
            .collection()
            .find_one(doc! {"_id": 1})
            .await
            .unwrap(),
    );
    assert_eq!(after, before);
    assert_eq!(doc.version(), Some(0));

    // Fixed, the pending changes go out as one update.
    doc.age = 40;
    doc.comments.last_mut().unwrap().text = "now valid".into();
    doc.save().await.unwrap();
    assert_eq!(sent(), ["insert", "update"]);
    assert_eq!(doc.version(), Some(1));
    m.finish().await;
}

#[tokio::test]
async fn raw_collection_access_is_not_validated() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let mut bad = common::bson::to_document(&valid(5)).unwrap();
    bad.insert("age", 2);
    bad.insert("__v", 0);
    accounts.collection().insert_one(bad).await.unwrap();
    accounts
        .collection()
        .update_one(doc! {"_id": 5}, doc! {"$set": {"status": "??"}})
        .await
        .unwrap();

    // Loading does not validate; the next save through odm does, whole-document.
    let mut doc = accounts.find_by_id(5).await.unwrap().unwrap();
    assert_eq!(doc.age, 2);
    doc.ratio = 1.0;
    assert_eq!(failures(doc.save().await).len(), 2);
    doc.age = 20;
    doc.status = "PENDING".into();
    doc.save().await.unwrap();
    let stored = accounts.find_by_id(5).await.unwrap().unwrap();
    assert_eq!(
        (stored.age, stored.ratio, stored.status.as_str()),
        (20, 1.0, "PENDING")
    );
    t.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Validate)]
struct Meta {
    #[odm(min_len = 1)]
    label: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "edge")]
struct Edge {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(one_of("a", "b"))]
    r#type: String,
    #[serde(flatten)]
    #[odm(nested)]
    meta: Meta,
    #[odm(nested)]
    boxed: Option<Box<Comment>>,
    #[odm(nested)]
    maybe_many: Option<Vec<Comment>>,
    /// A document type embedded in another: `Document` implements `Validate`.
    #[odm(nested)]
    owner: Option<Account>,
}

#[tokio::test]
async fn raw_idents_flatten_boxes_and_embedded_documents() {
    let mut e = Edge {
        id: 1,
        r#type: "c".into(),
        meta: Meta {
            label: String::new(),
        },
        boxed: Some(Box::new(Comment::new(""))),
        maybe_many: Some(vec![Comment::new("ok"), Comment::new("")]),
        owner: Some(Account { age: 1, ..valid(2) }),
    };
    assert_eq!(
        e.validate().unwrap_err().paths(),
        [
            "type",
            "label",
            "boxed.text",
            "maybe_many.1.text",
            "owner.age"
        ]
    );

    // Against the server: the flattened field is stored at the top level.
    let t = TestDb::new().await;
    let edges = Edge::model(&t.db);
    assert_eq!(failures(edges.create(e.clone()).await.map(|_| ())).len(), 5);
    e.r#type = "a".into();
    e.meta.label = "x".into();
    e.boxed = None;
    e.maybe_many = None;
    e.owner = None;
    edges.create(e).await.unwrap();
    let raw = edges
        .collection()
        .find_one(doc! {"_id": 1})
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw.get_str("label").unwrap(), "x");
    t.finish().await;
}
