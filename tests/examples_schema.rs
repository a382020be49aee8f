//! The schema migration example runs against the server: it is the
//! example's own module, so it cannot rot without this failing.

use odm_testing::TestDb;

#[path = "../examples/features/schema_migration.rs"]
mod schema_migration;

#[tokio::test]
async fn a_rolling_deploy_upgrades_lazily_refuses_the_old_release_and_migrates_the_rest() {
    let t = TestDb::new().await;
    let o = schema_migration::run(&t.db).await.expect("ran");
    assert!(o.first_read_from.is_some(), "{o:?}");
    assert!(o.old_release_refused, "{o:?}");
    // The first document was upgraded by its own save.
    assert_eq!((o.upgraded, o.current), (299, 1), "{o:?}");
    assert_eq!((o.batches, o.older_left), (3, 0), "{o:?}");
    t.finish().await;
}
