//! `#[odm(hooks)]`: `before_save` changes go out in the save's single
//! write, its error refuses the save with nothing sent, validation runs on
//! what it left, `after_save` errors leave the write standing, hooks join
//! the save's transaction, and delete hooks do the same around `delete()`.

use crate::common;

use std::sync::{Arc, Mutex};

use common::Monitored;
use odm::prelude::*;
use odm::{HookContext, Hooks};
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

/// What the hooks saw, shared by the copies of one test's account.
#[derive(Debug, Default, Clone)]
struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    fn push(&self, line: String) {
        self.0.lock().unwrap().push(line);
    }
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", hooks, validate = Self::rules)]
struct Account {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
    closed: bool,
    /// Written by `before_save`: how many saves the hook prepared.
    saves: i32,
    /// Makes `after_save` fail (the write must stand).
    #[serde(skip)]
    fail_after: bool,
    /// Makes `before_save` write an invalid email.
    #[serde(skip)]
    spoil: bool,
    /// Makes `before_save` write an audit record through the save's session.
    #[serde(skip)]
    audit: bool,
    /// Makes `before_delete` refuse.
    #[serde(skip)]
    keep: bool,
    #[serde(skip)]
    log: Log,
}

impl Account {
    fn rules(&self) -> Result<(), ValidationError> {
        if !self.email.contains('@') {
            return Err(ValidationError::new("email", "must contain @"));
        }
        Ok(())
    }
}

impl Hooks for Account {
    async fn before_save(&mut self, ctx: &mut HookContext<'_>) -> odm::Result<()> {
        self.log.push(format!(
            "before_save new={} session={}",
            ctx.is_new(),
            ctx.session().is_some()
        ));
        if self.closed {
            return Err(Error::hook("a closed account cannot be saved"));
        }
        self.email = self.email.trim().to_lowercase();
        self.saves += 1;
        if self.spoil {
            self.email = "no-at-sign".into();
        }
        if self.audit {
            let audit = ctx.database().collection::<odm::bson::Document>("audit");
            let record = doc! { "account": self.id, "saves": self.saves };
            match ctx.session() {
                Some(s) => audit.insert_one(record).session(s).await?,
                None => audit.insert_one(record).await?,
            };
        }
        Ok(())
    }

    async fn after_save(&self, ctx: &mut HookContext<'_>) -> odm::Result<()> {
        self.log.push(format!("after_save new={}", ctx.is_new()));
        if self.fail_after {
            return Err(Error::hook(format!("mailer down for {}", self.email)));
        }
        Ok(())
    }

    async fn before_delete(&self, _ctx: &mut HookContext<'_>) -> odm::Result<()> {
        self.log.push("before_delete".into());
        if self.keep {
            return Err(Error::hook("this account is kept"));
        }
        Ok(())
    }

    async fn after_delete(&self, _ctx: &mut HookContext<'_>) -> odm::Result<()> {
        self.log.push("after_delete".into());
        Ok(())
    }
}

fn account(email: &str) -> Account {
    Account {
        id: ObjectId::new(),
        email: email.into(),
        closed: false,
        saves: 0,
        fail_after: false,
        spoil: false,
        audit: false,
        keep: false,
        log: Log::default(),
    }
}

async fn stored(accounts: &Model<Account>, id: ObjectId) -> Option<odm::bson::Document> {
    accounts
        .collection()
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
}

async fn stored_email(accounts: &Model<Account>, id: ObjectId) -> String {
    let stored = stored(accounts, id).await.expect("stored");
    stored.get_str("email").unwrap().to_string()
}

#[tokio::test]
async fn before_save_changes_go_out_in_the_same_single_write() {
    let m = Monitored::new("hooks").await;
    let accounts = Account::model(m.db());
    let mut a = accounts.new_doc(account("  Ann@Example.COM "));
    a.save().await.unwrap();
    assert_eq!(m.monitor.writes().len(), 1, "one insert");
    assert_eq!(
        a.log.take(),
        ["before_save new=true session=false", "after_save new=true"]
    );
    assert_eq!(
        (a.email.as_str(), a.saves, a.version()),
        ("ann@example.com", 1, Some(0))
    );
    let s = stored(&accounts, a.id).await.unwrap();
    assert_eq!(
        (s.get_str("email").unwrap(), s.get_i32("saves").unwrap()),
        ("ann@example.com", 1)
    );

    // An update: the user's change and the hook's go out together.
    a.email = " Bob@Example.com".into();
    a.save().await.unwrap();
    assert_eq!(m.monitor.writes().len(), 2, "one updateOne");
    let s = stored(&accounts, a.id).await.unwrap();
    assert_eq!(
        (s.get_str("email").unwrap(), s.get_i32("saves").unwrap()),
        ("bob@example.com", 2)
    );
    assert_eq!(a.changes(), None, "the Doc holds what was stored");
    m.finish().await;
}

#[tokio::test]
async fn a_before_save_error_refuses_the_save_and_sends_nothing() {
    let m = Monitored::new("hooks").await;
    let accounts = Account::model(m.db());

    // A new document: nothing inserted.
    let mut closed = account("c@x.y");
    closed.closed = true;
    let mut c = accounts.new_doc(closed);
    let e = c.save().await.unwrap_err();
    let Error::Hook(h) = &e else { panic!("{e:?}") };
    assert_eq!(h.hook, "before_save");
    assert_eq!(
        e.to_string(),
        "before_save hook failed: a closed account cannot be saved"
    );
    // The reason is in the text; a chain walker does not see it twice.
    assert!(std::error::Error::source(&e).is_none());
    assert!(c.is_new());
    assert_eq!(m.monitor.writes().len(), 0);
    assert_eq!(accounts.count(doc! {}).await.unwrap(), 0);

    // A stored document: nothing updated, the Doc keeps changes and version.
    let mut a = accounts.create(account("a@x.y")).await.unwrap();
    let before = m.monitor.writes().len();
    a.email = "new@x.y".into();
    a.closed = true;
    let pending = a.changes();
    let e = a.save().await.unwrap_err();
    assert!(
        matches!(&e, Error::Hook(h) if h.hook == "before_save"),
        "{e:?}"
    );
    assert_eq!(m.monitor.writes().len(), before, "nothing sent");
    assert_eq!((a.changes(), a.version()), (pending, Some(0)));
    let s = stored(&accounts, a.id).await.unwrap();
    assert_eq!(
        (s.get_str("email").unwrap(), s.get_bool("closed").unwrap()),
        ("a@x.y", false)
    );
    m.finish().await;
}

#[tokio::test]
async fn validation_runs_on_what_before_save_left() {
    let m = Monitored::new("hooks").await;
    let accounts = Account::model(m.db());
    let mut a = accounts.create(account("a@x.y")).await.unwrap();
    let sent = m.monitor.writes().len();
    a.spoil = true;
    a.closed = false;
    let e = a.save().await.unwrap_err();
    let Error::Validation(v) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(v.errors()[0].path(), "email", "{v}");
    assert_eq!(
        m.monitor.writes().len(),
        sent,
        "an invalid document is never sent"
    );
    assert_eq!(stored_email(&accounts, a.id).await, "a@x.y");
    m.finish().await;
}

#[tokio::test]
async fn an_after_save_error_is_returned_but_the_write_stands() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let mut a = accounts.create(account("a@x.y")).await.unwrap();
    a.log.take();
    a.fail_after = true;
    a.email = "b@x.y".into();
    let e = a.save().await.unwrap_err();
    let Error::Hook(h) = &e else { panic!("{e:?}") };
    assert_eq!(h.hook, "after_save");
    assert_eq!(
        e.to_string(),
        "after_save hook failed: mailer down for b@x.y"
    );
    assert_eq!(
        a.log.take(),
        [
            "before_save new=false session=false",
            "after_save new=false"
        ]
    );
    // The write landed and the Doc moved on with it: no pending change.
    assert_eq!(stored_email(&accounts, a.id).await, "b@x.y");
    assert_eq!((a.changes(), a.saves), (None, 2));
    t.finish().await;
}

#[tokio::test]
async fn hooks_join_the_transaction_of_the_save() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let audit = t.db.collection::<odm::bson::Document>("audit");
    // Collections exist before the transactions (MongoDB < 4.4 needs that).
    audit.insert_one(doc! { "seed": true }).await.unwrap();
    let mut a = accounts.create(account("a@x.y")).await.unwrap();
    a.audit = true;
    a.log.take();

    // Aborted: the account's change and the hook's audit record both vanish.
    let mut s = t.client.start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    a.email = "b@x.y".into();
    a.save().session(&mut s).await.unwrap();
    assert_eq!(a.log.take()[0], "before_save new=false session=true");
    s.abort_transaction().await.unwrap();
    assert_eq!(
        audit
            .count_documents(doc! { "account": a.id })
            .await
            .unwrap(),
        0
    );
    assert_eq!(stored_email(&accounts, a.id).await, "a@x.y");

    // Committed: both are stored.
    a.reload().await.unwrap();
    a.audit = true;
    s.start_transaction().await.unwrap();
    a.email = "c@x.y".into();
    a.save().session(&mut s).await.unwrap();
    s.commit_transaction().await.unwrap();
    assert_eq!(
        audit
            .count_documents(doc! { "account": a.id })
            .await
            .unwrap(),
        1
    );
    assert_eq!(stored_email(&accounts, a.id).await, "c@x.y");
    drop(s);
    t.finish().await;
}

#[tokio::test]
async fn delete_hooks_refuse_or_follow_the_delete() {
    let m = Monitored::new("hooks").await;
    let accounts = Account::model(m.db());
    let mut a = accounts.create(account("a@x.y")).await.unwrap();
    a.log.take();
    a.keep = true;
    let sent = m.monitor.writes().len();
    let e = a.delete().await.unwrap_err();
    assert!(
        matches!(&e, Error::Hook(h) if h.hook == "before_delete"),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "before_delete hook failed: this account is kept"
    );
    assert_eq!(m.monitor.writes().len(), sent, "nothing sent");
    assert!(stored(&accounts, a.id).await.is_some());

    assert_eq!(a.log.take(), ["before_delete"]);
    a.keep = false;
    a.delete().await.unwrap();
    assert_eq!(a.log.take(), ["before_delete", "after_delete"]);
    assert!(stored(&accounts, a.id).await.is_none());
    m.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_with_retry_runs_the_hooks_on_every_attempt() {
    let t = TestDb::new().await;
    let accounts = Account::model(&t.db);
    let a = accounts.create(account("a@x.y")).await.unwrap();
    let mut stale = accounts.find_by_id(a.id).await.unwrap().unwrap();
    let mut raced = false;
    let saved = accounts
        .update_with_retry(a.id, 3, |acc: &mut Account| {
            if !raced {
                // Another writer saves between this load and its save.
                raced = true;
                stale.email = "other@x.y".into();
                stale.increment();
                futures_executor_block_on(stale.save()).unwrap();
            }
            acc.email = "A2@X.Y".into();
            Ok(())
        })
        .await
        .unwrap();
    // Two attempts, each prepared by before_save; the stored count shows
    // the winning attempt's own (hooks ran on a fresh copy each time).
    let s = stored(&accounts, a.id).await.unwrap();
    assert_eq!(s.get_str("email").unwrap(), "a2@x.y");
    assert_eq!(
        s.get_i32("saves").unwrap(),
        3,
        "create, the other writer, the retry"
    );
    assert_eq!(saved.version(), Some(2));
    t.finish().await;
}

/// Runs a save to completion from inside the retry's synchronous closure.
fn futures_executor_block_on<F: std::future::IntoFuture>(f: F) -> F::Output {
    tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(f.into_future()))
}
