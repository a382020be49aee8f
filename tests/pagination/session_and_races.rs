//! Pages read inside a session, and a walk racing real concurrent inserts.

use std::collections::HashSet;

use futures_util::TryStreamExt;
use mongodb::bson::{doc, Document as BsonDocument};
use odm::prelude::*;

use crate::pagination::{event, ids, ordered, seeded, Event};

pub async fn pages_read_inside_a_session() {
    let (m, events, all) = seeded("page-session", 9).await;
    let mut session = m.client().start_session().await.unwrap();
    let page = events
        .find(doc! {})
        .paginate(4)
        .session(&mut session)
        .await
        .unwrap();
    assert_eq!(ids(&page), vec![1, 2, 3, 4]);
    let mut stream = events
        .find(doc! {})
        .lean()
        .paginate(4)
        .after(page.next_token())
        .session(&mut session)
        .stream()
        .await
        .unwrap();
    let mut streamed = Vec::new();
    while let Some(e) = stream.try_next().await.unwrap() {
        streamed.push(e.id);
    }
    drop(stream);
    assert_eq!(streamed, ordered(&all, false)[4..].to_vec());
    let lsid = session.id().clone();
    let finds = m.monitor.named("find");
    assert_eq!(finds.len(), 3);
    for sent in finds {
        assert_eq!(sent.command.get_document("lsid").unwrap(), &lsid);
    }
    // The client's shutdown waits for every session to end.
    drop(session);
    m.finish().await;
}

/// A walk racing inserters: every document that existed before the walk
/// is returned exactly once, no item twice, in order, on every round.
pub async fn a_walk_racing_concurrent_inserts_repeats_and_skips_nothing() {
    let (m, events, all) = seeded("page-race", 60).await;
    let f = Event::fields();
    let before: HashSet<i32> = all.iter().map(|e| e.id).collect();
    let mut inserted = 0;
    let mut raced = 0;
    for round in 0..3 {
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let events = events.clone();
                tokio::spawn(async move {
                    for i in 0..10 {
                        let id = 1000 * (round + 1) + 100 * w + i;
                        // New events land before, among and after the walk's
                        // position, ties included.
                        let at = i64::from((id * 7919) % 25);
                        events.create(event(id, Some(at))).await.unwrap();
                        tokio::task::yield_now().await;
                    }
                })
            })
            .collect();
        let mut walked = Vec::new();
        let mut keys = Vec::new();
        let mut token: Option<String> = None;
        let at_start = events.count(BsonDocument::new()).await.unwrap();
        loop {
            let page = events
                .find(doc! {})
                .sort(f.created_at().desc())
                .lean()
                .paginate(5)
                .after(token.as_deref())
                .await
                .unwrap();
            for e in &page.items {
                walked.push(e.id);
                keys.push((e.created_at, e.id));
            }
            token = page.next;
            if token.is_none() {
                break;
            }
        }
        let at_end = events.count(BsonDocument::new()).await.unwrap();
        raced += usize::from(at_end > at_start);
        for writer in writers {
            writer.await.unwrap();
        }
        inserted += 40;
        let unique: HashSet<i32> = walked.iter().copied().collect();
        assert_eq!(
            unique.len(),
            walked.len(),
            "round {round}: an item repeated"
        );
        assert!(before.is_subset(&unique), "round {round}: an item skipped");
        let mut sorted = keys.clone();
        sorted.sort_by(|a, b| b.cmp(a));
        assert_eq!(keys, sorted, "round {round}: out of order");
    }
    let stored = events.count(BsonDocument::new()).await.unwrap();
    assert_eq!(stored, 60 + inserted);
    assert!(raced >= 1, "no round had inserts during its walk");
    m.finish().await;
}
