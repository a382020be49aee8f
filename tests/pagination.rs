//! Keyset pagination (issue 19, item 4) against the server: the items of
//! every page and the `find` each page sends, ties broken by `_id`, null
//! and missing sort values, tokens refused when they belong to another
//! query, tracked / lean / projected items, the stream of every item, a
//! session, and a walk racing real concurrent inserts.

mod common;

use std::collections::HashSet;

use common::Monitored;
use futures_util::TryStreamExt;
use mongodb::bson::{doc, Bson, Document as BsonDocument};
use mongodb::options::Hint;
use odm::page::{Page, PageErrorKind};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "events", index(keys(created_at = -1, id = -1), name = "by_time"))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(rename = "_id")]
    pub id: i32,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub created_at: Option<i64>,
    pub tags: Vec<String>,
}

/// What a feed shows of an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct EventCard {
    pub kind: String,
}

fn event(id: i32, created_at: Option<i64>) -> Event {
    Event {
        id,
        kind: if id % 2 == 0 { "even" } else { "odd" }.into(),
        created_at,
        tags: vec![],
    }
}

/// `n` events, three per `created_at` value, so ties are common.
async fn seeded(label: &str, n: i32) -> (Monitored, Model<Event>, Vec<Event>) {
    let m = Monitored::new(label).await;
    let events = Model::<Event>::new(m.db());
    let all: Vec<Event> = (1..=n)
        .map(|id| event(id, Some(i64::from(id / 3))))
        .collect();
    for outcome in events.insert_many(all.clone()).await.unwrap() {
        outcome.unwrap();
    }
    m.monitor.clear();
    (m, events, all)
}

/// The ids of `all` in (created_at, _id) order, descending when `desc`;
/// a missing `created_at` sorts as the smallest.
fn ordered(all: &[Event], desc: bool) -> Vec<i32> {
    let mut ids: Vec<(Option<i64>, i32)> = all.iter().map(|e| (e.created_at, e.id)).collect();
    ids.sort();
    if desc {
        ids.reverse();
    }
    ids.into_iter().map(|(_, id)| id).collect()
}

fn ids(page: &Page<Doc<Event>>) -> Vec<i32> {
    page.items.iter().map(|e| e.id).collect()
}

#[tokio::test]
async fn pages_walk_every_document_once_newest_first_ties_by_id() {
    let (m, events, all) = seeded("page-walk", 23).await;
    let f = Event::fields();
    let mut walked = Vec::new();
    let mut sizes = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let page = events
            .find(doc! {})
            .sort(f.created_at().desc())
            .paginate(5)
            .after(token.as_deref())
            .await
            .unwrap();
        sizes.push(page.items.len());
        walked.extend(ids(&page));
        match page.next {
            Some(next) => token = Some(next),
            None => break,
        }
    }
    assert_eq!(walked, ordered(&all, true));
    assert_eq!(sizes, vec![5, 5, 5, 5, 3]);

    // What the first two pages sent: the full sort, one extra item, and
    // for the second the keyset filter after the fifth item (created_at 6,
    // _id 19: 23, 22, 21 | 20, 19 are the first five).
    let finds = m.monitor.named("find");
    assert_eq!(finds.len(), 5);
    let first = &finds[0].command;
    assert_eq!(first.get_document("filter").unwrap(), &doc! {});
    assert_eq!(
        first.get_document("sort").unwrap(),
        &doc! { "createdAt": -1, "_id": -1 }
    );
    assert!(matches!(
        first.get("limit"),
        Some(Bson::Int64(6) | Bson::Int32(6))
    ));
    assert_eq!(
        finds[1].command.get_document("filter").unwrap(),
        &doc! { "$or": [
            { "createdAt": { "$lt": 6_i64 } },
            { "createdAt": null },
            { "createdAt": 6_i64, "_id": { "$lt": 19 } },
        ] }
    );
    m.finish().await;
}

#[tokio::test]
async fn an_exact_multiple_ends_without_an_empty_page_and_no_sort_pages_by_id() {
    let (_m, events, _) = seeded("page-exact", 10).await;
    let first = events.find(doc! {}).paginate(5).await.unwrap();
    assert_eq!(ids(&first), vec![1, 2, 3, 4, 5]);
    let last = events
        .find(doc! {})
        .paginate(5)
        .after(first.next_token())
        .await
        .unwrap();
    assert_eq!(ids(&last), vec![6, 7, 8, 9, 10]);
    assert_eq!(last.next, None);
    let empty = events
        .find(doc! { "kind": "none" })
        .paginate(5)
        .await
        .unwrap();
    assert_eq!((empty.items.len(), empty.next), (0, None));
}

#[tokio::test]
async fn typed_filters_lean_values_and_projections_page_alike() {
    let (m, events, all) = seeded("page-kinds", 14).await;
    let f = Event::fields();
    let even: Vec<i32> = ordered(&all, false)
        .into_iter()
        .filter(|id| id % 2 == 0)
        .collect();

    // Lean, with a typed filter, ascending.
    let mut lean = Vec::new();
    let mut token = None;
    loop {
        let page = events
            .find(f.kind().eq("even"))
            .sort(f.created_at().asc())
            .lean()
            .paginate(3)
            .after(token.as_deref())
            .await
            .unwrap();
        lean.extend(page.items.iter().map(|e: &Event| e.id));
        token = page.next;
        if token.is_none() {
            break;
        }
    }
    assert_eq!(lean, even);
    let sent = &m.monitor.named("find")[1].command;
    assert_eq!(
        sent.get_document("filter").unwrap(),
        &doc! { "$and": [
            { "kind": "even" },
            { "$or": [
                { "createdAt": { "$gt": 2_i64 } },
                { "createdAt": 2_i64, "_id": { "$gt": 6 } },
            ] },
        ] }
    );

    // A projection: the sort keys are read too, so the token can be made.
    m.monitor.clear();
    let page = events
        .find(doc! { "kind": "odd" })
        .sort(f.created_at().desc())
        .projection::<EventCard>()
        .paginate(4)
        .await
        .unwrap();
    assert_eq!(page.items, vec![EventCard { kind: "odd".into() }; 4]);
    let sent = &m.monitor.named("find")[0].command;
    assert_eq!(
        sent.get_document("projection").unwrap(),
        &doc! { "kind": 1, "createdAt": 1, "_id": 1 }
    );
    let rest = events
        .find(doc! { "kind": "odd" })
        .sort(f.created_at().desc())
        .projection::<EventCard>()
        .paginate(4)
        .after(page.next_token())
        .await
        .unwrap();
    assert_eq!(rest.items.len(), 3);
    assert_eq!(rest.next, None);

    // Tracked documents save like any loaded one.
    let mut page = events.find(doc! {}).paginate(2).await.unwrap();
    page.items[1].kind = "edited".into();
    page.items[1].save().await.unwrap();
    let stored = events.find_by_id(2).await.unwrap().unwrap();
    assert_eq!(
        (stored.kind.as_str(), stored.version()),
        ("edited", Some(0))
    );
    m.finish().await;
}

#[tokio::test]
async fn null_and_missing_sort_values_come_first_ascending_and_last_descending() {
    let m = Monitored::new("page-nulls").await;
    let events = Model::<Event>::new(m.db());
    let mut all = Vec::new();
    for id in 1..=12 {
        let at = match id % 4 {
            0 => None, // missing
            1 => Some(i64::from(id % 3)),
            _ => Some(5),
        };
        all.push(event(id, at));
    }
    events.insert_many(all.clone()).await.unwrap();
    // Two stored as an explicit null rather than missing.
    events
        .collection()
        .update_many(
            doc! { "_id": { "$in": [4, 8] } },
            doc! { "$set": { "createdAt": null } },
        )
        .await
        .unwrap();
    let f = Event::fields();
    for desc in [false, true] {
        let sort = if desc {
            f.created_at().desc()
        } else {
            f.created_at().asc()
        };
        for size in [1, 2, 5] {
            let mut walked = Vec::new();
            let mut token: Option<String> = None;
            loop {
                let page = events
                    .find(doc! {})
                    .sort(sort.clone())
                    .lean()
                    .paginate(size)
                    .after(token.as_deref())
                    .await
                    .unwrap();
                walked.extend(page.items.iter().map(|e| e.id));
                token = page.next;
                if token.is_none() {
                    break;
                }
            }
            assert_eq!(walked, ordered(&all, desc), "desc {desc}, size {size}");
        }
    }
    m.finish().await;
}

#[tokio::test]
async fn a_token_of_another_query_is_refused_before_anything_is_sent() {
    let (m, events, _) = seeded("page-tokens", 6).await;
    let f = Event::fields();
    let page = events
        .find(f.kind().eq("odd"))
        .sort(f.created_at().desc())
        .paginate(2)
        .await
        .unwrap();
    let token = page.next.clone().unwrap();
    m.monitor.clear();

    let refused = |e: odm::Error| match e {
        Error::Page(p) => (p.kind.clone(), p.to_string()),
        other => panic!("{other:?}"),
    };
    let foreign = format!(
        "cannot continue paging \"{}.events\": the continuation token was issued for another \
         query (another collection, filter or sort); a token continues only its own query",
        m.db().name()
    );
    // Another filter, another sort, another collection.
    let other_filter = events
        .find(f.kind().eq("even"))
        .sort(f.created_at().desc())
        .paginate(2)
        .after(token.as_str())
        .await
        .unwrap_err();
    assert_eq!(
        refused(other_filter),
        (PageErrorKind::ForeignToken, foreign.clone())
    );
    let other_sort = events
        .find(f.kind().eq("odd"))
        .sort(f.created_at().asc())
        .lean()
        .paginate(2)
        .after(token.as_str())
        .await
        .unwrap_err();
    assert_eq!(refused(other_sort).0, PageErrorKind::ForeignToken);
    let archive = Model::<Event>::with_collection(m.db(), "events_archive");
    let other_collection = archive
        .find(f.kind().eq("odd"))
        .sort(f.created_at().desc())
        .paginate(2)
        .after(token.as_str())
        .await
        .unwrap_err();
    let (kind, text) = refused(other_collection);
    assert_eq!(kind, PageErrorKind::ForeignToken);
    assert!(text.contains(".events_archive\""), "{text}");

    // Not a token at all, or one cut short.
    for bad in ["", "page-2", &token[..token.len() - 4]] {
        let e = events
            .find(f.kind().eq("odd"))
            .sort(f.created_at().desc())
            .paginate(2)
            .after(bad)
            .await
            .unwrap_err();
        let (kind, text) = refused(e);
        assert_eq!(kind, PageErrorKind::MalformedToken, "{bad}");
        assert!(text.ends_with("is not one odm issued (mistyped, cut short or made up)"));
    }
    // skip / limit, and a size of 0.
    let e = events.find(doc! {}).skip(2).paginate(2).await.unwrap_err();
    assert!(matches!(refused(e).0, PageErrorKind::Options { .. }));
    let e = events.find(doc! {}).paginate(0).await.unwrap_err();
    assert!(matches!(refused(e).0, PageErrorKind::Options { .. }));
    assert_eq!(m.monitor.started("find"), 0, "nothing was sent");

    // The same query takes it.
    let next = events
        .find(f.kind().eq("odd"))
        .sort(f.created_at().desc())
        .paginate(2)
        .after(token.as_str())
        .await
        .unwrap();
    assert_eq!(ids(&next), vec![1]);
    m.finish().await;
}

#[tokio::test]
async fn an_array_sort_key_and_a_meta_sort_are_refused_by_name() {
    let (m, events, _) = seeded("page-arrays", 3).await;
    events
        .collection()
        .update_one(doc! { "_id": 2 }, doc! { "$set": { "tags": ["secret"] } })
        .await
        .unwrap();
    let e = events
        .find(doc! {})
        .sort(Event::fields().tags().asc())
        .paginate(5)
        .await
        .unwrap_err();
    let Error::Page(p) = e else { panic!("{e:?}") };
    assert_eq!(
        p.kind,
        PageErrorKind::ArrayKey {
            path: "tags".into()
        }
    );
    assert!(!p.to_string().contains("secret"), "{p}");
    let e = events
        .find(doc! {})
        .sort(doc! { "score": { "$meta": "textScore" } })
        .paginate(5)
        .await
        .unwrap_err();
    let Error::Page(p) = e else { panic!("{e:?}") };
    assert_eq!(
        p.kind,
        PageErrorKind::Sort {
            path: "score".into()
        }
    );
    m.finish().await;
}

#[tokio::test]
async fn the_stream_yields_every_item_and_its_token_resumes_it() {
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

#[tokio::test]
async fn pages_read_inside_a_session() {
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
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_walk_racing_concurrent_inserts_repeats_and_skips_nothing() {
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
