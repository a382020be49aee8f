//! The many-documents examples run against the server: each is the
//! example's own module, so it cannot rot without this failing.

use odm_testing::TestDb;

#[path = "../examples/features/bulk_save.rs"]
mod bulk_save;

#[path = "../examples/features/insert_many.rs"]
mod insert_many;

#[tokio::test]
async fn bulk_save_closes_every_session_but_the_stale_one() {
    let t = TestDb::new().await;
    let o = bulk_save::run(&t.db).await.expect("ran");
    assert_eq!((o.closed, o.stale), (o.sessions - 1, 1), "{o:?}");
    assert_eq!(o.closed_stored, (o.sessions - 1) as u64, "{o:?}");
    t.finish().await;
}

#[tokio::test]
async fn insert_many_tells_each_row_its_outcome() {
    let t = TestDb::new().await;
    let o = insert_many::run(&t.db).await.expect("ran");
    assert_eq!(
        (o.rows, o.inserted, o.invalid, o.taken),
        (4, 2, 1, 1),
        "{o:?}"
    );
    assert_eq!(o.stored, 3, "{o:?}");
    t.finish().await;
}
