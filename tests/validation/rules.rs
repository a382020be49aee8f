//! Every built-in validator passing at its bound and failing past it, and
//! custom field and container validators.

use mongodb::bson::doc;
use odm::prelude::*;
use odm_testing::TestDb;

use crate::validation::common::Monitored;
use crate::validation::{failures, pairs, valid, Account};

type Mutation = fn(&mut Account);

pub async fn each_builtin_passes_at_its_bound_and_fails_past_it() {
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

pub async fn custom_field_and_container_validators_run() {
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
