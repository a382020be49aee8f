//! The pagination and aggregation example runs against the server: the
//! example's own module, so it cannot rot without this failing.

use odm_testing::TestDb;

#[path = "../examples/features/pages.rs"]
mod pages;

#[tokio::test]
async fn the_feed_reads_every_post_once_while_others_post_and_the_report_adds_up() {
    let t = TestDb::new().await;
    let o = pages::run(&t.db).await.expect("ran");
    // 20 posts newest first, ties by _id descending; the posts written
    // while scrolling are newer than the walk's position, so not in it.
    let expected: Vec<i32> = (1..=20).rev().collect();
    assert_eq!(o.feed, expected, "{o:?}");
    assert_eq!((o.pages, o.written_meanwhile), (4, 4), "{o:?}");
    assert!(o.foreign_refused, "{o:?}");
    let rows: Vec<(&str, i32, i32)> = o
        .report
        .iter()
        .map(|r| (r.author.as_str(), r.posts, r.likes))
        .collect();
    // likes = id % 5; author = ["ann", "bob", "cid"][id % 3].
    let mut sums = [("ann", 0, 0), ("bob", 0, 0), ("cid", 0, 0)];
    for id in 1..=20 {
        let row = &mut sums[id % 3];
        row.1 += 1;
        row.2 += (id % 5) as i32;
    }
    let mut sums = sums.to_vec();
    sums.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
    assert_eq!(rows, sums, "{o:?}");
    t.finish().await;
}
