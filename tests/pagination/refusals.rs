//! What is refused before anything is sent: a token of another query, an
//! array sort key and a `$meta` sort.

use mongodb::bson::doc;
use odm::page::PageErrorKind;
use odm::prelude::*;

use crate::pagination::{ids, seeded, Event};

pub async fn a_token_of_another_query_is_refused_before_anything_is_sent() {
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

pub async fn an_array_sort_key_and_a_meta_sort_are_refused_by_name() {
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
