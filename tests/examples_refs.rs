//! The references example (posts and authors) runs against the server:
//! the example's own module, so it cannot rot without this failing.

use odm_testing::TestDb;

#[path = "../examples/features/references.rs"]
mod references;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn posts_and_authors_keep_their_links() {
    let t = TestDb::new().await;
    let o = references::run(&t.db).await.expect("ran");
    assert_eq!((o.posts, o.authors_read), (30, 3), "{o:?}");
    assert!(
        o.refused_delete && o.reviewer_pulled && o.refused_post,
        "{o:?}"
    );
    // Exactly one of the racing delete and post lands.
    assert!(o.race_deleted != o.race_posted, "{o:?}");
    assert_eq!(o.dangling, 0, "{o:?}");
    t.finish().await;
}
