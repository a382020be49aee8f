//! The web service example (issue 34) over a real HTTP client on loopback:
//! `If-Match` is required (`428`), a stale ETag is refused (`412` with the
//! current ETag), a `PATCH` of disjoint fields merges, and a counted race
//! of 8 clients x 50 edits: the naive handler (load, change,
//! `replace_one`) loses edits, odm's none.

#[path = "../examples/features/web_service.rs"]
mod service;

use odm::prelude::*;
use odm_testing::TestDb;
use service::{fetch, patch, put, Article, Edit, Patch};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_service_story_and_a_counted_race_of_8_clients_by_50_edits() {
    let t = TestDb::new().await;
    let o = service::run(&t.db, 8, 50).await.expect("ran");
    assert_eq!(o.without_if_match, 428, "{o:?}");
    assert_eq!((o.first, o.second), (200, 412), "{o:?}");
    assert!(o.second_told_current, "{o:?}");
    assert_eq!((o.patch_fresh, o.patch_stale), (200, 412), "{o:?}");
    // Every edit was acknowledged in time on both services.
    assert_eq!(o.naive.acknowledged, 400, "{o:?}");
    assert_eq!(o.odm.acknowledged, 400, "{o:?}");
    // The naive handler lost some of them; odm none, at the price of
    // refusing (412) and redoing the stale ones.
    assert!(o.naive.lost > 0, "{o:?}");
    assert_eq!(o.odm.lost, 0, "{o:?}");
    assert!(o.odm.refused > 0, "{o:?}");
    println!(
        "naive: {} of 400 edits lost; odm: none lost, {} refused with 412 and redone",
        o.naive.lost, o.odm.refused
    );
    t.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_patch_of_other_fields_racing_the_handler_is_merged_and_of_the_same_refused() {
    let t = TestDb::new().await;
    let articles = Article::model(&t.db);
    articles
        .create(Article {
            id: 7,
            title: "t".into(),
            body: "b".into(),
            tags: vec![],
        })
        .await
        .unwrap();
    let (addr, server) = service::serve(service::router(articles.clone())).await;
    let (article, tag) = fetch(addr, 7).await.unwrap();
    assert_eq!(article.title, "t");
    let tag = tag.unwrap();
    assert_eq!(tag, "\"7-v0\"");
    // A PUT of the whole article with the ETag lands and answers the new one.
    let edit = Edit {
        title: "T".into(),
        body: "b".into(),
        tags: vec![],
    };
    let answer = put(addr, 7, Some(&tag), &edit).await.unwrap();
    assert_eq!(
        (answer.status, answer.etag.as_deref()),
        (200, Some("\"7-v1\""))
    );
    // The old ETag is refused, for PATCH too, naming the current one.
    let retag = Patch {
        tags: Some(vec!["x".into()]),
        ..Patch::default()
    };
    let answer = patch(addr, 7, Some(&tag), &retag).await.unwrap();
    assert_eq!(
        (answer.status, answer.etag.as_deref()),
        (412, Some("\"7-v1\""))
    );
    let answer = patch(addr, 7, None, &retag).await.unwrap();
    assert_eq!(answer.status, 428);
    // `*` matches any stored version.
    let answer = patch(addr, 7, Some("*"), &retag).await.unwrap();
    assert_eq!(
        (answer.status, answer.etag.as_deref()),
        (200, Some("\"7-v2\""))
    );
    let (article, _) = fetch(addr, 7).await.unwrap();
    assert_eq!(article.tags, ["x"]);
    server.abort();
    t.finish().await;
}
