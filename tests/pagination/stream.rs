//! The stream of every item, and its token resuming it.

use futures_util::TryStreamExt;
use mongodb::bson::doc;
use mongodb::options::Hint;
use odm::prelude::*;

use crate::pagination::{ordered, seeded, Event};

pub async fn the_stream_yields_every_item_and_its_token_resumes_it() {
    let (m, events, all) = seeded("page-stream", 17).await;
    let f = Event::fields();
    events.sync_indexes().await.unwrap();
    m.monitor.clear();
    let walk = || {
        events
            .find(doc! {})
            .sort(f.created_at().desc())
            .hint(Hint::Name("by_time".into()))
            .paginate(4)
    };
    let streamed: Vec<i32> = walk()
        .stream()
        .await
        .unwrap()
        .map_ok(|e| e.id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed, ordered(&all, true));
    // 17 items in pages of 4: five finds, each with the hint.
    let finds = m.monitor.named("find");
    assert_eq!(finds.len(), 5);
    assert!(finds
        .iter()
        .all(|s| s.command.get_str("hint").ok() == Some("by_time")));

    // Stop after 6, resume from the stream's token.
    let mut stream = walk().stream().await.unwrap();
    let mut first = Vec::new();
    assert_eq!(stream.next_token(), None);
    for _ in 0..6 {
        first.push(stream.try_next().await.unwrap().unwrap().id);
    }
    let token = stream.next_token().unwrap();
    drop(stream);
    let rest: Vec<i32> = walk()
        .after(token.as_str())
        .stream()
        .await
        .unwrap()
        .map_ok(|e| e.id)
        .try_collect()
        .await
        .unwrap();
    first.extend(rest);
    assert_eq!(first, ordered(&all, true));
    m.finish().await;
}
