//! The focused examples (issue 14), the lock ones included, run against the
//! server: each is the example's own module, so an example cannot rot
//! without this failing.

use std::collections::HashSet;

use odm_testing::TestDb;

#[path = "../examples/features/upsert.rs"]
mod upsert;

#[path = "../examples/features/set_writes.rs"]
mod set_writes;

#[path = "../examples/features/claim.rs"]
mod claim;

#[path = "../examples/features/unique_index.rs"]
mod unique_index;

#[path = "../examples/features/optimistic_concurrency.rs"]
mod optimistic_concurrency;

#[path = "../examples/features/retry.rs"]
mod retry;

#[path = "../examples/features/transaction.rs"]
mod transaction;

#[path = "../examples/features/locks_ticket.rs"]
mod locks_ticket;

#[path = "../examples/features/archived_email.rs"]
mod archived_email;

#[path = "../examples/features/tracing.rs"]
mod tracing_log;

#[path = "../examples/features/typed_paths.rs"]
mod typed_paths;

#[path = "../examples/features/change_feed.rs"]
mod change_feed;

#[path = "../examples/features/typed_queries.rs"]
mod typed_queries;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upsert_stores_one_user_for_concurrent_first_requests() {
    let t = TestDb::new().await;
    let o = upsert::run(&t.db).await.expect("ran");
    assert_eq!((o.inserted, o.stored), (1, 1), "{o:?}");
    assert!((0..o.requests).contains(&o.first_request), "{o:?}");
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claim_runs_every_job_once() {
    let t = TestDb::new().await;
    let o = claim::run(&t.db).await.expect("ran");
    let distinct: HashSet<i64> = o.runs.iter().copied().collect();
    assert_eq!((o.runs.len(), distinct.len()), (o.jobs, o.jobs), "{o:?}");
    assert!(o.reclaim_refused, "{o:?}");
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unique_index_lets_one_registration_in() {
    let t = TestDb::new().await;
    let o = unique_index::run(&t.db).await.expect("ran");
    assert_eq!(
        (o.created, o.existing),
        (vec!["email_1".to_string()], vec!["email_1".to_string()])
    );
    assert_eq!(o.registered, 1, "{:?}", o.refused_by);
    assert_eq!(o.refused_by, vec![Some("email_1".to_string()); 9]);
    assert_eq!(o.rename_refused_by.as_deref(), Some("email_1"));
    assert!(o.rename_pending);
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optimistic_concurrency_refuses_the_stale_copy() {
    let t = TestDb::new().await;
    let o = optimistic_concurrency::run(&t.db).await.expect("ran");
    assert_eq!(
        (o.stale_version, o.stale_paths.as_slice()),
        (0, &["avatar".to_string()][..])
    );
    assert!(o.refused_after_reload, "{o:?}");
    let (status, avatar, version) = o.stored;
    assert_eq!(
        (status.as_str(), avatar.is_some(), version),
        ("APPROVED", true, Some(1))
    );
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_loses_no_increment() {
    let t = TestDb::new().await;
    let o = retry::run(&t.db).await.expect("ran");
    assert_eq!(o.value, o.increments, "{o:?}");
    assert!(o.tries >= o.increments as usize, "{o:?}");
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transaction_commits_together_and_rolls_back_docs() {
    let t = TestDb::new().await;
    let o = transaction::run(&t.db).await.expect("ran");
    assert_eq!(o.after_commit, ((70, Some(1)), (30, Some(1))));
    assert_eq!(o.after_abort, o.after_commit);
    assert!(!o.pending_after_abort);
    assert_eq!(o.stored, (70, 30));
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn locks_ticket_gives_one_ticket_with_a_mutex_and_with_leases() {
    let t = TestDb::new().await;
    let o = locks_ticket::run(&t.db).await.expect("ran");
    assert!(o.naive >= 1, "{o:?}");
    assert_eq!((o.mutex, o.mutex_entries, o.leases), (1, 0, 1), "{o:?}");
    // Ten grants to the clicks, then this one.
    assert_eq!(o.next_token, 11, "{o:?}");
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archived_email_keeps_one_active_account_and_refuses_the_stale_holder() {
    let t = TestDb::new().await;
    let o = archived_email::run(&t.db).await.expect("ran");
    assert_eq!(o.created, 1, "{o:?}");
    assert!(o.again, "{o:?}");
    assert_eq!((o.with_email, o.active_after), (2, 1), "{o:?}");
    assert!(o.stale_refused && o.stale_release_lost, "{o:?}");
    assert_eq!(o.stored_name, "Ann (current holder)");
    t.finish().await;
}

#[path = "../examples/features/hooks.rs"]
mod hooks;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_keep_the_slug_and_guard_the_delete() {
    let t = TestDb::new().await;
    let o = hooks::run(&t.db).await.expect("ran");
    assert_eq!(
        o.slugs,
        ["ada-lovelace", "ada-countess-of-lovelace"],
        "{o:?}"
    );
    // Default versioning: a `$set` of two strings does not bump the version.
    assert_eq!(o.version_after_rename, Some(0), "{o:?}");
    assert!(o.empty_slug_refused, "{o:?}");
    assert_eq!(
        o.delete_refused,
        "before_delete hook failed: make the profile private before deleting it"
    );
    // create, rename, the refused save, make private: the refused save's
    // hook wrote its record before validation refused the save.
    assert_eq!((o.deleted, o.audit_records), (true, 4), "{o:?}");
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_paths_query_claim_and_check_a_nested_path() {
    let t = TestDb::new().await;
    let o = typed_paths::run(&t.db).await.expect("ran");
    assert_eq!(
        o.paths,
        ["customer.emailAddress", "replies.by", "viewCount"]
    );
    assert_eq!(o.open_priorities, [5, 2, 1]);
    assert_eq!((o.answered_by_ann, o.claimed_priority), (2, Some(5)));
    assert_eq!(o.stale_refused_paths, ["customer.emailAddress"]);
    assert_eq!(o.stored, ("carl@example.org".to_string(), 1, Some(1)));
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_feed_resumes_without_missing_or_repeating() {
    let t = TestDb::new().await;
    let o = change_feed::run(&t.db).await.expect("ran");
    assert_eq!((o.first_worker, o.second_worker), (vec![1], vec![2, 3]));
    assert!(o.foreign_token_refused);
    t.finish().await;
}

/// A writer into a shared buffer, for the tracing example's output.
#[derive(Clone, Default)]
struct Buffer(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracing_logs_every_command_without_values() {
    use tracing::instrument::WithSubscriber;
    let t = TestDb::new().await;
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_log::subscriber(move || writer.clone(), tracing::Level::DEBUG);
    let o = tracing_log::run(&t.db)
        .with_subscriber(subscriber)
        .await
        .expect("ran");
    assert!(o.stale_refused, "{o:?}");
    assert_eq!(o.left, 0);
    let output = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    // The stale save's refusal is also one conflict event (odm::conflict).
    let (conflicts, lines): (Vec<&str>, Vec<&str>) = output.lines().partition(|line| {
        line.starts_with(" INFO odm::conflict: ") || line.starts_with("INFO odm::conflict: ")
    });
    assert_eq!(conflicts.len(), 1, "{output}");
    assert!(
        conflicts[0].contains("save stale on users"),
        "{}",
        conflicts[0]
    );
    assert!(
        conflicts[0].contains("paths=\"status\""),
        "{}",
        conflicts[0]
    );
    assert!(
        conflicts[0].contains("stored=\"status\""),
        "{}",
        conflicts[0]
    );
    let operations: Vec<&str> = lines
        .iter()
        .map(|line| {
            assert!(line.starts_with("DEBUG odm::command: "), "{line}");
            assert!(line.contains(" collection=\"users\" "), "{line}");
            let at = line.find("operation=\"").expect("an operation") + "operation=\"".len();
            line[at..].split('"').next().unwrap()
        })
        .collect();
    assert_eq!(
        operations,
        [
            "listIndexes",
            "createIndexes",
            "insert",
            "find",
            "find",
            "update",
            "update",
            // After the refusal, one read of what the store changed.
            "find",
            "delete",
            "count"
        ],
        "{output}"
    );
    assert!(
        lines[5].contains("filter=\"{ _id: ?, __v: ? }\""),
        "{}",
        lines[5]
    );
    assert!(
        lines[5].contains("result=\"matched 1, modified 1\""),
        "{}",
        lines[5]
    );
    assert!(
        lines[6].contains("result=\"matched 0, modified 0\""),
        "{}",
        lines[6]
    );
    // DEBUG shows no values.
    assert!(!output.contains("ann@example.com"), "{output}");
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_queries_filter_read_and_update_without_string_keys() {
    let t = TestDb::new().await;
    let o = typed_queries::run(&t.db).await.expect("ran");
    assert_eq!(o.adult_pro, vec![3, 1], "{o:?}");
    assert_eq!((o.with_email, o.any_admin), (3, true), "{o:?}");
    assert_eq!(o.tags, vec!["admin", "beta", "new"], "{o:?}");
    let mut plans = o.plans.clone();
    plans.sort_by_key(|p| *p == typed_queries::Plan::ProTeam);
    assert_eq!(
        plans,
        vec![typed_queries::Plan::Free, typed_queries::Plan::ProTeam]
    );
    assert_eq!(o.estimated, 5, "{o:?}");
    assert_eq!(o.minors, vec![2, 5], "{o:?}");
    assert_eq!(o.free_cards, vec!["Bo", "Di"], "{o:?}");
    assert_eq!(o.welcomed, Some((3, 1)), "{o:?}");
    t.finish().await;
}

#[tokio::test]
async fn set_writes_expire_and_delete_and_refuse_the_stale_copy() {
    let t = TestDb::new().await;
    let o = set_writes::run(&t.db).await.expect("ran");
    assert_eq!(o.expired, (2, 2), "{o:?}");
    assert!(o.stale_refused, "{o:?}");
    assert!(o.bad_value_refused, "{o:?}");
    assert_eq!((o.deleted, o.left), (2, 1), "{o:?}");
    t.finish().await;
}

#[path = "../examples/features/conflict_counts.rs"]
mod conflict_counts;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conflict_counts_counts_every_conflict_per_model() {
    use tracing::instrument::WithSubscriber;
    use tracing_subscriber::layer::SubscriberExt;
    let t = TestDb::new().await;
    let counter = conflict_counts::ConflictCounter::default();
    let subscriber = tracing_subscriber::registry().with(counter.clone());
    let o = conflict_counts::run(&t.db, &counter)
        .with_subscriber(subscriber)
        .await
        .expect("ran");
    assert_eq!(o.value, o.increments, "{o:?}");
    assert_eq!(o.stored_changes, Some(vec!["plan".to_string()]), "{o:?}");
    let count = |model: &str, operation: &str, outcome: &str| {
        let key = (
            model.to_string(),
            operation.to_string(),
            outcome.to_string(),
        );
        o.counts.get(&key).copied().unwrap_or(0)
    };
    // One event per retry, per refused save, per resent upsert; nothing else.
    assert_eq!(
        count("Counter", "update_with_retry", "retried"),
        o.retries,
        "{o:?}"
    );
    assert_eq!(count("Member", "save", "stale"), 1, "{o:?}");
    assert_eq!(count("Member", "upsert", "resent"), 1, "{o:?}");
    let total: u64 = o.counts.values().sum();
    assert_eq!(total, o.retries + 2, "{o:?}");
    t.finish().await;
}
