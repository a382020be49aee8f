//! Runs `examples/features/event_kinds.rs` (issue 33) against the test
//! server and checks what it reports.

use odm::bson::doc;
use odm_testing::TestDb;

#[path = "../examples/features/event_kinds.rs"]
mod event_kinds;

#[tokio::test]
async fn events_of_three_kinds_and_a_checkout_that_becomes_a_purchase() {
    let t = TestDb::new().await;
    let o = event_kinds::run(&t.db).await.expect("ran");
    assert_eq!(o.buy_clicks, 2);
    assert_eq!(o.per_kind, [3, 0, 1]);
    let id = o.purchase.get("_id").cloned().expect("an _id");
    assert_eq!(
        o.purchase,
        doc! { "kind": "Purchase", "_id": id, "order": "A-1", "__v": 1, "cents": 1_250_i64 }
    );
    assert!(o.stale_refused);
    assert!(o.duplicate_refused);
    t.finish().await;
}
