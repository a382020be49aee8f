//! A server that requires SCRAM-SHA-256 authentication, reached through a
//! `mongodb://user:password@...` URI: saves and finds work authenticated,
//! writes without credentials and with a wrong password are refused with
//! a clear error, and no `Display` or `Debug` of an odm error, or of the
//! odm types that hold a client (`Model`, `Doc`, `Leases`), shows the
//! password.
//!
//! The test starts its own server: on a disk storage path without
//! `--auth`, creates a user, stops it and starts it again with `--auth` on
//! the same path. With `MONGODB_URI` set (a server it cannot restart) it
//! runs only when `ODM_AUTH_URI` gives a URI with the credentials of a
//! user that may create and drop databases (`root`), and skips otherwise.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mongodb::Client;
use odm::bson::doc;
use odm::lock::Leases;
use odm::prelude::*;
use odm_testing::Server;
use serde::{Deserialize, Serialize};

/// Distinctive, so finding it in any text is no accident.
const PASSWORD: &str = "Odm7PasswordSecret9Zq";
const USER: &str = "odm_auth_tester";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", optimistic_concurrency)]
struct Account {
    #[serde(rename = "_id")]
    id: ObjectId,
    owner: String,
    balance: i64,
}

/// The server under test and the URIs to reach it with good, no and wrong
/// credentials.
struct Target {
    /// Kept alive for the test; `None` for `ODM_AUTH_URI`. Dropped (so
    /// stopped) before `dir` is removed.
    _server: Option<Server>,
    _dir: Option<TempDir>,
    good: String,
    anonymous: String,
    wrong: String,
    /// The password in `good`, looked for in every text.
    password: String,
}

/// A directory removed when dropped, even when the test fails.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn uri(port: u16, credentials: &str) -> String {
    format!(
        "mongodb://{credentials}127.0.0.1:{port}/?directConnection=true&retryWrites=false&authSource=admin&serverSelectionTimeoutMS=5000"
    )
}

/// Starts a server on a fresh directory, creates the user, restarts it
/// with `--auth`.
async fn local() -> Target {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir =
        TempDir(std::env::temp_dir().join(format!("odm-auth-{}-{stamp}", std::process::id())));
    let path = dir.0.to_str().unwrap().to_string();
    let open = Server::start(&["--storage-path", &path]).expect("server without --auth");
    let client = Client::with_uri_str(uri(open.port(), "")).await.unwrap();
    client
        .database("admin")
        .run_command(doc! {
            "createUser": USER,
            "pwd": PASSWORD,
            "roles": [{ "role": "root", "db": "admin" }],
            "mechanisms": ["SCRAM-SHA-256"],
        })
        .await
        .expect("createUser");
    client.shutdown().await;
    open.stop();
    let server = Server::start(&["--storage-path", &path, "--auth"]).expect("server with --auth");
    let port = server.port();
    Target {
        _server: Some(server),
        _dir: Some(dir),
        good: uri(port, &format!("{USER}:{PASSWORD}@")),
        anonymous: uri(port, ""),
        wrong: uri(port, &format!("{USER}:not-{PASSWORD}@")),
        password: PASSWORD.to_string(),
    }
}

/// `ODM_AUTH_URI` (`mongodb://user:password@host/...`) and the same URI
/// without credentials and with another password.
fn given(uri: String) -> Target {
    let (scheme, rest) = uri.split_once("://").expect("ODM_AUTH_URI has a scheme");
    let (credentials, host) = rest
        .split_once('@')
        .expect("ODM_AUTH_URI has user:password@");
    let (user, password) = credentials
        .split_once(':')
        .expect("ODM_AUTH_URI has user:password@");
    Target {
        _server: None,
        _dir: None,
        anonymous: format!("{scheme}://{host}"),
        wrong: format!("{scheme}://{user}:not-{password}@{host}"),
        password: password.to_string(),
        good: uri,
    }
}

/// Asserts no text of `value` shows the password.
fn hides_password(target: &Target, what: &str, value: &dyn std::fmt::Debug, display: &str) {
    let debug = format!("{value:?}");
    for (form, text) in [("Display", display), ("Debug", debug.as_str())] {
        assert!(
            !text.contains(&target.password),
            "the {form} of {what} shows the password: {text}"
        );
    }
}

/// The driver error under an odm error, for its kind.
fn driver_error(err: &Error) -> &mongodb::error::Error {
    match err {
        Error::Driver(e) => e,
        other => panic!("expected Error::Driver, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scram_users_work_and_no_error_shows_the_password() {
    let target = match (std::env::var("ODM_AUTH_URI"), std::env::var("MONGODB_URI")) {
        (Ok(uri), _) if !uri.is_empty() => given(uri),
        (_, Ok(uri)) if !uri.is_empty() => {
            println!("skipped: MONGODB_URI names a server this test cannot restart with --auth; set ODM_AUTH_URI=mongodb://user:password@host/... to run it there");
            return;
        }
        _ => local().await,
    };
    let db_name = format!("odm_auth_{}", std::process::id());

    // Authenticated: create, find, change, save, find again.
    let client = Client::with_uri_str(&target.good).await.unwrap();
    let db = client.database(&db_name);
    let accounts = Account::model(&db);
    let id = ObjectId::new();
    accounts
        .create(Account {
            id,
            owner: "ada".into(),
            balance: 10,
        })
        .await
        .expect("an authenticated create");
    let mut account = accounts.find_by_id(id).await.unwrap().expect("found");
    account.balance += 5;
    account.save().await.expect("an authenticated save");
    let stored = accounts
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stored,
        doc! { "_id": id, "owner": "ada", "balance": 15_i64, "__v": 1 }
    );

    // The odm errors a user meets, and the types that hold a client.
    let mut shown: Vec<(String, String, String)> = Vec::new();
    let mut keep = |what: &str, value: &dyn std::fmt::Debug, display: String| {
        shown.push((what.to_string(), format!("{value:?}"), display));
    };
    let mut stale = accounts.find_by_id(id).await.unwrap().unwrap();
    account.balance += 1;
    account.save().await.unwrap();
    stale.balance = 0;
    let version = stale.save().await.unwrap_err();
    assert!(matches!(version, Error::Version(_)), "{version:?}");
    keep("a version error", &version, version.to_string());
    let duplicate = accounts
        .create(Account {
            id,
            owner: "eve".into(),
            balance: 0,
        })
        .await
        .unwrap_err();
    assert!(matches!(duplicate, Error::DuplicateKey(_)), "{duplicate:?}");
    keep("a duplicate key error", &duplicate, duplicate.to_string());
    accounts
        .collection()
        .insert_one(doc! { "_id": "bad", "owner": 1, "balance": 0, "__v": 0 })
        .await
        .unwrap();
    let bad = accounts.find_by_id("bad").await.unwrap_err();
    assert!(matches!(bad, Error::Deserialize(_)), "{bad:?}");
    keep("a deserialize error", &bad, bad.to_string());
    keep("a Model", &accounts, String::new());
    keep("a Doc", &account, String::new());
    let leases = Leases::new(&db, "leases");
    keep("a Leases", &leases, String::new());
    let lease = leases
        .acquire("k", Duration::from_secs(30))
        .await
        .expect("an authenticated lease");
    keep("a Lease", &lease, String::new());
    lease.release().await.unwrap();

    // Without credentials: refused, clearly.
    let anonymous = Client::with_uri_str(&target.anonymous).await.unwrap();
    let refused = Account::model(&anonymous.database(&db_name))
        .create(Account {
            id: ObjectId::new(),
            owner: "mallory".into(),
            balance: 1,
        })
        .await
        .unwrap_err();
    let code = match driver_error(&refused).kind.as_ref() {
        mongodb::error::ErrorKind::Command(e) => e.code,
        mongodb::error::ErrorKind::Write(mongodb::error::WriteFailure::WriteError(e)) => e.code,
        other => panic!("expected a refused command, got {other:?}"),
    };
    assert_eq!(code, 13, "Unauthorized: {refused}");
    assert!(
        refused.to_string().contains("Unauthorized")
            || refused.to_string().contains("requires authentication"),
        "{refused}"
    );
    keep("an unauthenticated write", &refused, refused.to_string());
    let refused_read = Account::model(&anonymous.database(&db_name))
        .find_by_id(id)
        .await
        .unwrap_err();
    keep(
        "an unauthenticated read",
        &refused_read,
        refused_read.to_string(),
    );
    anonymous.shutdown().await;

    // A wrong password (the right one with a prefix): an authentication
    // error, which shows neither.
    let wrong = Client::with_uri_str(&target.wrong).await.unwrap();
    let failed = Account::model(&wrong.database(&db_name))
        .find_by_id(id)
        .await
        .unwrap_err();
    assert!(
        matches!(
            driver_error(&failed).kind.as_ref(),
            mongodb::error::ErrorKind::Authentication { .. }
        ),
        "{failed:?}"
    );
    assert!(
        failed
            .to_string()
            .to_lowercase()
            .contains("authentication failed"),
        "{failed}"
    );
    keep("a wrong password", &failed, failed.to_string());
    wrong.shutdown().await;

    for (what, debug, display) in &shown {
        for (form, text) in [("Display", display), ("Debug", debug)] {
            assert!(
                !text.contains(&target.password),
                "the {form} of {what} shows the password: {text}"
            );
        }
    }
    hides_password(&target, "the client", &client, "");
    println!(
        "checked {} errors and values: no password in their Display or Debug",
        shown.len()
    );

    db.drop().await.unwrap();
    client.shutdown().await;
}

/// What the examples print of a URI never holds its password.
#[test]
fn printed_uris_hide_the_password() {
    use odm_testing::redacted;
    assert_eq!(
        redacted("mongodb://ann:s3cret-Pw@db.example:27017/app?authSource=admin"),
        "mongodb://ann:***@db.example:27017/app?authSource=admin"
    );
    assert_eq!(
        redacted("mongodb+srv://ann:p%40ss@cluster.example/"),
        "mongodb+srv://ann:***@cluster.example/"
    );
    let plain = "mongodb://127.0.0.1:27017/?directConnection=true";
    assert_eq!(redacted(plain), plain);
    // An `@` in the query is not a credential.
    let query = "mongodb://h:1/?appName=a@b";
    assert_eq!(redacted(query), query);
}
