//! Walks of every page: the items of each page and the `find` it sends,
//! ties broken by `_id`, an exact multiple of the page size, no sort,
//! tracked / lean / projected items, null and missing sort values.

use mongodb::bson::{doc, Bson};
use odm::prelude::*;

use crate::pagination::common::Monitored;
use crate::pagination::{event, ids, ordered, seeded, Event, EventCard};

pub async fn pages_walk_every_document_once_newest_first_ties_by_id() {
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

pub async fn an_exact_multiple_ends_without_an_empty_page_and_no_sort_pages_by_id() {
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

pub async fn typed_filters_lean_values_and_projections_page_alike() {
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

pub async fn null_and_missing_sort_values_come_first_ascending_and_last_descending() {
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
