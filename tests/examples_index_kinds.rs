//! The index kinds example runs against the server: it is the example's
//! own module, so it cannot rot without this failing.

use odm_testing::TestDb;

#[path = "../examples/features/index_kinds.rs"]
mod index_kinds;

#[tokio::test]
async fn index_kinds_expire_collate_and_find_nearby() {
    let t = TestDb::new().await;
    let o = index_kinds::run(&t.db).await.expect("ran");
    // 2dsphere before collation before TTL: kinds a server may lack first.
    assert_eq!(o.created, ["home_near", "handle_1", "last_seen_1"]);
    assert_eq!(o.existing, ["handle_1", "last_seen_1", "home_near"]);
    assert_eq!(o.duplicate_of.as_deref(), Some("handle_1"));
    assert_eq!(o.near, 2, "{o:?}");
    match &o.text {
        Ok(created) => assert_eq!(created, &["notice_search"]),
        Err(refusal) => assert!(
            refusal.contains("refused to create index \"notice_search\""),
            "{refusal}"
        ),
    }
    t.finish().await;
}
