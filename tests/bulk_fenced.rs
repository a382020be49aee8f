//! `bulk_save().fenced(&lease)` against the server: every statement of
//! the batch carries the lease's token as `save().fenced()` does, a `Doc`
//! whose document holds a newer token is told `Error::Fenced` (found by
//! one read, never guessed) and keeps its changes, the others get their
//! own outcomes. Each test runs both ways a batch can go.

use crate::both_paths;
use crate::common;

use std::time::Duration;

use common::leases::{stale_and_next, LONG};
use common::monitor::Sent;
use common::Monitored;
use mongodb::bson::{Bson, Document as BsonDocument};
use odm::__private::BulkPath;
use odm::lock::Leases;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

/// A closed model (loading must skip the stored `__fence`); every change
/// checks and bumps the version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "fenced_reports", optimistic_concurrency)]
#[serde(deny_unknown_fields)]
struct Report {
    #[serde(rename = "_id")]
    id: i64,
    total: i64,
    /// The tokens of the holders whose writes landed, in order.
    tokens: Vec<i64>,
}

fn report(id: i64) -> Report {
    Report {
        id,
        total: 0,
        tokens: vec![],
    }
}

async fn create(reports: &Model<Report>, ids: std::ops::Range<i64>) {
    for id in ids {
        reports.create(report(id)).await.unwrap();
    }
}

async fn load(reports: &Model<Report>, ids: std::ops::Range<i64>) -> Vec<Doc<Report>> {
    let mut docs = Vec::new();
    for id in ids {
        docs.push(reports.find_by_id(id).await.unwrap().unwrap());
    }
    docs
}

async fn stored(reports: &Model<Report>, id: i64) -> BsonDocument {
    common::stored(reports, id).await
}

/// The statements of a write command: `(filter, update)` of an update,
/// `(None, document)` of an insert.
fn statements(sent: &Sent) -> Vec<(Option<BsonDocument>, BsonDocument)> {
    let c = &sent.command;
    let list = |key: &str| c.get_array(key).cloned().unwrap_or_default();
    let docs = |list: Vec<Bson>| -> Vec<BsonDocument> {
        list.into_iter()
            .map(|b| b.as_document().unwrap().clone())
            .collect()
    };
    match sent.name.as_str() {
        "bulkWrite" => docs(list("ops"))
            .into_iter()
            .map(|op| match op.get_document("document") {
                Ok(d) => (None, d.clone()),
                Err(_) => (
                    Some(op.get_document("filter").unwrap().clone()),
                    op.get_document("updateMods").unwrap().clone(),
                ),
            })
            .collect(),
        "update" => docs(list("updates"))
            .into_iter()
            .map(|u| {
                let q = u.get_document("q").unwrap().clone();
                (Some(q), u.get_document("u").unwrap().clone())
            })
            .collect(),
        "insert" => docs(list("documents"))
            .into_iter()
            .map(|d| (None, d))
            .collect(),
        other => panic!("not a write: {other}"),
    }
}

/// Every statement of every write `m` saw carries `token`, and each write
/// states `w: majority`.
fn every_statement_carries(m: &Monitored, token: i64) -> usize {
    let mut count = 0;
    for sent in m.monitor.all() {
        if !["bulkWrite", "update", "insert"].contains(&sent.name.as_str()) {
            continue;
        }
        let concern = sent.command.get_document("writeConcern").unwrap();
        assert_eq!(
            concern.get_str("w").unwrap(),
            "majority",
            "{}",
            sent.command
        );
        for (filter, written) in statements(&sent) {
            count += 1;
            match filter {
                Some(filter) => {
                    assert_eq!(
                        filter.get_document("__fence").unwrap(),
                        &doc! { "$not": { "$gt": token } },
                        "{filter}"
                    );
                    let set = written.get_document("$set").unwrap();
                    assert_eq!(set.get_i64("__fence").unwrap(), token, "{written}");
                }
                None => assert_eq!(written.get_i64("__fence").unwrap(), token),
            }
        }
    }
    count
}

fn fenced(outcome: &odm::Result<()>) -> (i64, Option<i64>) {
    match outcome {
        Err(Error::Fenced(e)) => (e.token, e.stored),
        other => panic!("expected Error::Fenced, got {other:?}"),
    }
}

both_paths!(
    a_batch_under_a_valid_lease_lands,
    a_newer_holder_refuses_the_whole_batch,
    stale_and_refused_docs_in_one_fenced_batch,
    in_a_session_and_in_a_transaction,
);

/// Changed, unchanged and new `Doc`s in one batch under a valid lease:
/// every statement carries the token (the unchanged `Doc` writes the
/// fence alone), all land and commit, each stored document holds the
/// token.
async fn a_batch_under_a_valid_lease_lands(path: BulkPath) {
    let m = Monitored::new(&format!("bulk_fenced_lands_{path:?}")).await;
    let leases = Leases::new(m.db(), "locks");
    let reports = Report::model(m.db());
    create(&reports, 0..3).await;
    let lease = leases.acquire("reports", LONG).await.unwrap();
    let mut docs = load(&reports, 0..3).await;
    docs[0].total = 5;
    docs[1].tokens.push(lease.token());
    docs.push(reports.new_doc(report(3)));

    m.monitor.clear();
    let outcomes = reports
        .bulk_save(&mut docs)
        .fenced(&lease)
        .path(path)
        .await
        .unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    assert_eq!(every_statement_carries(&m, lease.token()), 4);
    assert_eq!(m.monitor.started("find"), 0, "nothing to settle");
    for (doc, version) in docs.iter().zip([1, 1, 0, 0]) {
        assert_eq!(doc.changes(), None, "committed");
        assert_eq!(doc.version(), Some(version));
        let mut expected = common::bson::to_document(&**doc).unwrap();
        expected.insert("__v", version as i32);
        expected.insert("__fence", lease.token());
        assert_eq!(stored(&reports, doc.id).await, expected);
    }
    m.finish().await;
}

/// After another holder took the lease over and wrote, the stale holder's
/// whole batch is refused: each `Doc` is told `Error::Fenced` with both
/// tokens, keeps its pending changes, and nothing is stored.
async fn a_newer_holder_refuses_the_whole_batch(path: BulkPath) {
    let m = Monitored::new(&format!("bulk_fenced_refused_{path:?}")).await;
    let leases = Leases::new(m.db(), "locks");
    let reports = Report::model(m.db());
    create(&reports, 0..4).await;
    let (stale, next) = stale_and_next(&leases, "reports").await;
    let mut current = load(&reports, 0..4).await;
    for doc in current.iter_mut() {
        doc.tokens.push(next.token());
    }
    let outcomes = reports.bulk_save(&mut current).fenced(&next).path(path);
    assert!(outcomes.await.unwrap().iter().all(Result::is_ok));

    // Loaded after the new holder wrote: only the fence refuses them.
    let mut late = load(&reports, 0..4).await;
    for doc in late.iter_mut() {
        doc.total = -1;
        doc.tokens.push(stale.token());
    }
    let pending: Vec<_> = late.iter().map(Doc::changes).collect();
    let before: Vec<_> =
        futures_util::future::join_all((0..4).map(|id| stored(&reports, id))).await;
    m.monitor.clear();
    let outcomes = reports
        .bulk_save(&mut late)
        .fenced(&stale)
        .path(path)
        .await
        .unwrap();
    for outcome in &outcomes {
        assert_eq!(fenced(outcome), (stale.token(), Some(next.token())));
    }
    if let Err(Error::Fenced(e)) = &outcomes[2] {
        assert_eq!(e.filter, doc! { "_id": 2_i64 });
        assert_eq!(
            e.to_string(),
            format!(
                "fenced write with token {} refused on collection \"fenced_reports\" for \"{{ _id: 2 }}\": the document holds the newer token {}",
                stale.token(),
                next.token()
            )
        );
    }
    assert_eq!(every_statement_carries(&m, stale.token()), 4);
    assert_eq!(m.monitor.started("find"), 1, "one read tells the refusals");
    for (i, doc) in late.iter().enumerate() {
        assert_eq!(doc.changes(), pending[i], "Doc {i} keeps its changes");
        assert_eq!(doc.version(), Some(1));
        assert_eq!(
            stored(&reports, i as i64).await,
            before[i],
            "nothing stored"
        );
    }
    m.finish().await;
}

/// Under a valid lease, a batch with stale `Doc`s (another writer bumped
/// their version) and one `Doc` whose document a newer holder of another
/// lease wrote: the stale ones fail with `Error::Version`, the refused one
/// with `Error::Fenced`, the others land; one read tells them apart.
async fn stale_and_refused_docs_in_one_fenced_batch(path: BulkPath) {
    let m = Monitored::new(&format!("bulk_fenced_mixed_{path:?}")).await;
    let leases = Leases::new(m.db(), "locks");
    let reports = Report::model(m.db());
    create(&reports, 0..6).await;
    let lease = leases.acquire("reports", LONG).await.unwrap();
    let mut docs = load(&reports, 0..6).await;
    for doc in docs.iter_mut() {
        doc.total = 7;
    }
    for id in [1, 4] {
        reports
            .collection()
            .update_one(doc! { "_id": id }, doc! { "$inc": { "__v": 1 } })
            .await
            .unwrap();
    }
    let newer = lease.token() + 100;
    reports
        .collection()
        .update_one(doc! { "_id": 3 }, doc! { "$set": { "__fence": newer } })
        .await
        .unwrap();

    m.monitor.clear();
    let outcomes = reports
        .bulk_save(&mut docs)
        .fenced(&lease)
        .path(path)
        .await
        .unwrap();
    assert_eq!(m.monitor.started("find"), 1, "one read settles the misses");
    for (i, outcome) in outcomes.iter().enumerate() {
        let now = stored(&reports, i as i64).await;
        match (i, outcome) {
            (1 | 4, Err(Error::Version(e))) => {
                assert_eq!((e.id.clone(), e.version), (Bson::Int64(i as i64), 0));
                assert!(docs[i].changes().is_some());
                assert_eq!(now.get_i64("total").unwrap(), 0);
                assert!(!now.contains_key("__fence"));
            }
            (3, refused) => {
                assert_eq!(fenced(refused), (lease.token(), Some(newer)));
                assert!(docs[i].changes().is_some());
                assert_eq!(now.get_i64("total").unwrap(), 0);
            }
            (0 | 2 | 5, Ok(())) => {
                assert_eq!(docs[i].changes(), None);
                assert_eq!(now.get_i64("total").unwrap(), 7);
                assert_eq!(now.get_i64("__fence").unwrap(), lease.token());
            }
            other => panic!("Doc {i}: unexpected {other:?}"),
        }
    }
    m.finish().await;
}

/// In a session without a transaction the batch states `w: majority`;
/// inside a transaction it states none (the commit carries it, and the
/// server refuses one per operation) and lands with the commit.
async fn in_a_session_and_in_a_transaction(path: BulkPath) {
    let m = Monitored::new(&format!("bulk_fenced_session_{path:?}")).await;
    let leases = Leases::new(m.db(), "locks");
    let reports = Report::model(m.db());
    create(&reports, 0..2).await;
    let lease = leases.acquire("reports", LONG).await.unwrap();
    let mut session = m.client().start_session().await.unwrap();

    let mut docs = load(&reports, 0..2).await;
    docs[0].total = 1;
    m.monitor.clear();
    let outcomes = reports
        .bulk_save(&mut docs)
        .fenced(&lease)
        .path(path)
        .session(&mut session)
        .await
        .unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    assert_eq!(every_statement_carries(&m, lease.token()), 2);
    assert_eq!(m.monitor.writes().len(), 1, "one write, no probe sent");

    // A fresh session: the local server refuses the `afterClusterTime`
    // read concern a used session adds to a transaction's first
    // `bulkWrite` (MongoDB accepts it).
    drop(session);
    let mut session = m.client().start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    docs[1].total = 2;
    docs.push(reports.new_doc(report(2)));
    m.monitor.clear();
    let outcomes = reports
        .bulk_save(&mut docs)
        .fenced(&lease)
        .path(path)
        .session(&mut session)
        .await
        .unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    for sent in m.monitor.all() {
        assert!(
            !sent.command.contains_key("writeConcern"),
            "{}",
            sent.command
        );
    }
    session.commit_transaction().await.unwrap();
    drop(session);
    for (id, total) in [(0, 1), (1, 2), (2, 0)] {
        let now = stored(&reports, id).await;
        assert_eq!(now.get_i64("total").unwrap(), total);
        assert_eq!(now.get_i64("__fence").unwrap(), lease.token());
    }
    m.finish().await;
}

both_paths!(racing_holders_never_land_an_older_token_after_a_newer_one);

/// What one fenced batch of the race came to.
#[derive(Default, Debug)]
struct Counts {
    landed: usize,
    fenced: usize,
    version: usize,
    /// Told in doubt: on the `update` command's path, a statement whose
    /// document another holder changed before the batch read it back.
    in_doubt: usize,
}

/// Waits (at most 1 s) until a holder newer than `token` has written the
/// first document, so that a paused holder loads a copy that is up to
/// date but for its lease: its write is refused by the fence alone (its
/// version check passes), which is the fence's whole point. On a loaded
/// machine, a bare pause could end before any newer holder wrote, and
/// then no holder would be fenced out.
async fn overtaken(reports: &Model<Report>, token: i64) {
    for _ in 0..50 {
        let now = stored(reports, 0).await;
        if now.get_i64("__fence").is_ok_and(|f| f > token) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Four holders race for one lease, six rounds each: each acquires it
/// (a short ttl), half the time pauses past the ttl (so another holder
/// takes the lease over and writes: see [`overtaken`]), then loads the
/// documents, appends its token and saves them in one fenced batch.
/// Counted outcomes, and the stored histories: a token is stored only in increasing order, so
/// no write with an older token landed after a newer one wrote; every
/// write told landed is stored, and none told a miss is.
async fn racing_holders_never_land_an_older_token_after_a_newer_one(path: BulkPath) {
    const TASKS: usize = 4;
    const ROUNDS: usize = 6;
    const DOCS: i64 = 3;
    let m = Monitored::new(&format!("bulk_fenced_race_{path:?}")).await;
    let leases = Leases::new(m.db(), "locks");
    let reports = Report::model(m.db());
    create(&reports, 0..DOCS).await;
    let race = common::race::Race::new(TASKS);
    let tasks = (0..TASKS).map(|task| {
        let (leases, reports, race) = (leases.clone(), reports.clone(), race.clone());
        tokio::spawn(race.run(async move {
            let mut told = Vec::new();
            for round in 0..ROUNDS {
                let lease = leases
                    .acquire("race", Duration::from_millis(20))
                    .await
                    .unwrap();
                if (task + round) % 2 == 0 {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    overtaken(&reports, lease.token()).await;
                }
                let mut docs = load(&reports, 0..DOCS).await;
                for doc in docs.iter_mut() {
                    doc.tokens.push(lease.token());
                }
                let outcomes = reports.bulk_save(&mut docs).fenced(&lease).path(path);
                let outcomes = outcomes.await.unwrap();
                for (doc, outcome) in docs.iter().zip(outcomes) {
                    told.push((doc.id, lease.token(), outcome));
                }
                // Lost when another holder took it over.
                let _ = lease.release().await;
            }
            told
        }))
    });
    let mut counts = Counts::default();
    let mut landed: Vec<Vec<i64>> = vec![Vec::new(); DOCS as usize];
    let mut doubtful: Vec<Vec<i64>> = vec![Vec::new(); DOCS as usize];
    for task in futures_util::future::join_all(tasks).await {
        for (id, token, outcome) in task.unwrap() {
            match outcome {
                Ok(()) => {
                    counts.landed += 1;
                    landed[id as usize].push(token);
                }
                Err(Error::Fenced(e)) => {
                    counts.fenced += 1;
                    assert_eq!(e.token, token);
                    assert!(e.stored.unwrap() > token, "{e}");
                }
                Err(Error::Version(_)) => counts.version += 1,
                Err(e) if common::bulk_paths::in_doubt(&e) => {
                    assert_eq!(path, BulkPath::Commands, "{e}");
                    counts.in_doubt += 1;
                    doubtful[id as usize].push(token);
                }
                Err(e) => panic!("unexpected {e:?}"),
            }
        }
    }
    assert_eq!(
        counts.landed + counts.fenced + counts.version + counts.in_doubt,
        TASKS * ROUNDS * DOCS as usize
    );
    assert!(counts.fenced > 0, "no holder was fenced out: {counts:?}");
    for (id, mut tokens) in landed.into_iter().enumerate() {
        let now = stored(&reports, id as i64).await;
        let history: Vec<i64> = now
            .get_array("tokens")
            .unwrap()
            .iter()
            .map(|t| t.as_i64().unwrap())
            .collect();
        assert!(
            history.windows(2).all(|w| w[0] < w[1]),
            "doc {id}: an older token landed after a newer one: {history:?}"
        );
        // Every write told landed is stored, and every stored one was told
        // landed or in doubt: none told a miss.
        tokens.sort();
        let stored_told: Vec<i64> = history
            .iter()
            .copied()
            .filter(|t| tokens.contains(t))
            .collect();
        assert_eq!(stored_told, tokens, "doc {id}: every landed write stored");
        for token in &history {
            assert!(
                tokens.contains(token) || doubtful[id].contains(token),
                "doc {id}: the write of token {token} landed, told a miss"
            );
        }
        assert_eq!(now.get_i64("__fence").ok(), history.last().copied());
    }
    eprintln!("{path:?}: {counts:?}");
    m.finish().await;
}
