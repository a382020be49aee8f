//! Enum models (issue 33): a kind's own handle (`variant::<V>()`) never
//! reaches another kind (raw and typed filters, counts, updates, deletes,
//! claims, upserts); set-based writes cannot change a kind (Mongoose
//! #9600's shape); `bulk_save`, `insert_many`, lean reads and
//! `update_with_retry` keep the kind rules.

use crate::enum_support;

use enum_support::{click, id_of, purchase, stored, Click, Event, Purchase};
use odm::prelude::*;
use odm_testing::TestDb;

#[tokio::test]
async fn set_based_writes_cannot_change_a_kind() {
    // Mongoose #9600: a `$set` of the discriminator key changed the kind
    // and left the old kind's fields.
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#buy");
    events.create(Event::Click(c.clone())).await.unwrap();
    let before = stored(&events, c.id).await.unwrap();
    let e = events
        .update_many(doc! {}, doc! { "$set": { "kind": "Purchase", "cents": 1 } })
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Validation(_)), "{e:?}");
    assert!(e.to_string().contains("the kind of `Event`"), "{e}");
    let e = events
        .claim(
            doc! { "_id": c.id },
            doc! { "$rename": { "element": "kind" } },
        )
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Validation(_)), "{e:?}");
    let e = events
        .upsert(doc! { "_id": c.id })
        .set(doc! { "kind": "Purchase" })
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Validation(_)), "{e:?}");
    assert_eq!(stored(&events, c.id).await.unwrap(), before);
    t.finish().await;
}

#[tokio::test]
async fn a_kind_handle_never_reaches_another_kind() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let clicks = events.variant::<Click>();
    let purchases = events.variant::<Purchase>();
    assert_eq!((clicks.name(), purchases.name()), ("Click", "Purchase"));
    for i in 0..3 {
        let mut c = click(&format!("#c{i}"));
        c.tags = vec!["shared".into()];
        clicks.create(c).await.unwrap();
        let mut p = purchase(i);
        p.tags = vec!["shared".into()];
        let doc = purchases.create(p).await.unwrap();
        assert!(matches!(&*doc, Event::Purchase(_)));
    }
    assert_eq!(clicks.count(doc! {}).await.unwrap(), 3);
    assert_eq!(clicks.count(doc! { "tags": "shared" }).await.unwrap(), 3);
    // The caller's own term on the kind key still applies.
    assert_eq!(clicks.count(doc! { "kind": "Purchase" }).await.unwrap(), 0);
    let found = clicks.find(doc! { "tags": "shared" }).await.unwrap();
    assert_eq!(found.len(), 3);
    assert!(found.iter().all(|d| matches!(&**d, Event::Click(_))));
    // A typed filter of the kind's own fields.
    let f = Click::fields();
    assert_eq!(clicks.count(f.element().eq("#c1")).await.unwrap(), 1);
    assert_eq!(
        purchases
            .count(Purchase::fields().cents().gte(1_i64))
            .await
            .unwrap(),
        2
    );
    assert!(clicks.exists(f.element().eq("#c2")).await.unwrap());
    assert!(!purchases.exists(doc! { "element": "#c2" }).await.unwrap());
    let one = purchases
        .find_one(doc! { "tags": "shared" })
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(&*one, Event::Purchase(_)));
    // An _id of another kind is not found through this kind's handle.
    let a_click = id_of(&found[0]);
    assert!(purchases.find_by_id(a_click).await.unwrap().is_none());
    assert!(clicks.find_by_id(a_click).await.unwrap().is_some());
    // Updates and deletes stay within the kind.
    let report = clicks
        .update_many(
            doc! { "tags": "shared" },
            doc! { "$push": { "tags": "seen" } },
        )
        .await
        .unwrap();
    assert_eq!((report.matched(), report.modified()), (3, 3));
    assert_eq!(events.count(doc! { "tags": "seen" }).await.unwrap(), 3);
    assert_eq!(purchases.count(doc! { "tags": "seen" }).await.unwrap(), 0);
    assert_eq!(purchases.delete_many(doc! {}).await.unwrap(), 3);
    assert_eq!(clicks.count(doc! {}).await.unwrap(), 3);
    assert_eq!(events.count(doc! {}).await.unwrap(), 3);
    t.finish().await;
}

#[tokio::test]
async fn a_kind_handle_claims_and_upserts_only_its_kind() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let clicks = events.variant::<Click>();
    let purchases = events.variant::<Purchase>();
    let p = purchase(5);
    purchases.create(p.clone()).await.unwrap();
    assert!(clicks
        .claim(
            doc! { "_id": p.id },
            doc! { "$set": { "element": "#stolen" } }
        )
        .await
        .unwrap()
        .is_none());
    let claimed = purchases
        .claim(doc! { "_id": p.id }, doc! { "$inc": { "cents": 1 } })
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(&*claimed, Event::Purchase(q) if q.cents == 6));
    // An upsert through a kind's handle inserts a document of that kind.
    let id = ObjectId::new();
    let made = clicks
        .upsert(doc! { "_id": id })
        .set_on_insert(doc! { "element": "#new", "tags": [] })
        .await
        .unwrap();
    assert!(matches!(&*made, Event::Click(c) if c.element == "#new"));
    assert_eq!(
        stored(&events, id).await.unwrap().get_str("kind").unwrap(),
        "Click"
    );
    t.finish().await;
}

#[tokio::test]
async fn bulk_save_keeps_the_kind_rules() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let (c1, c2) = (click("#1"), click("#2"));
    events.create(Event::Click(c1.clone())).await.unwrap();
    events.create(Event::Click(c2.clone())).await.unwrap();
    let mut stale = events.find_by_id(c2.id).await.unwrap().unwrap();
    let untouched = events.find_by_id(c2.id).await.unwrap().unwrap();
    let gone = events.find_by_id(c1.id).await.unwrap().unwrap();
    let mut docs = events
        .find(doc! {})
        .sort(doc! { "element": 1 })
        .await
        .unwrap();
    *docs[0] = Event::Purchase(Purchase {
        id: c1.id,
        cents: 1,
        tags: vec![],
    });
    *docs[1] = Event::Purchase(Purchase {
        id: c2.id,
        cents: 2,
        tags: vec![],
    });
    let outcomes = events.bulk_save(&mut docs).await.unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    assert_eq!(docs[0].version(), Some(1));
    assert_eq!(
        stored(&events, c1.id).await.unwrap(),
        doc! { "kind": "Purchase", "_id": c1.id, "tags": [], "__v": 1, "cents": 1_i64 }
    );
    events
        .collection()
        .delete_one(doc! { "_id": c1.id })
        .await
        .unwrap();
    // Stale copies of the old kind: an edit, one with nothing to write
    // (a version error, as `save()` tells it), and a deleted one.
    if let Event::Click(c) = &mut *stale {
        c.element = "#stale".into();
    }
    let mut batch = vec![stale, gone];
    let outcomes = events.bulk_save(&mut batch).await.unwrap();
    assert!(
        matches!(outcomes[0], Err(Error::Version(_))),
        "{outcomes:?}"
    );
    assert!(
        matches!(outcomes[1], Err(Error::NotFound(_))),
        "{outcomes:?}"
    );
    let mut batch = vec![untouched];
    let outcomes = events.bulk_save(&mut batch).await.unwrap();
    assert!(
        matches!(outcomes[0], Err(Error::Version(_))),
        "{outcomes:?}"
    );
    assert_eq!(
        stored(&events, c2.id).await.unwrap(),
        doc! { "kind": "Purchase", "_id": c2.id, "tags": [], "__v": 1, "cents": 2_i64 }
    );
    t.finish().await;
}

#[tokio::test]
async fn insert_many_lean_reads_and_update_with_retry_across_kinds() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let c = click("#a");
    let p = purchase(3);
    let outcomes = events
        .insert_many([Event::Click(c.clone()), Event::Purchase(p.clone())])
        .await
        .unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    let lean: Vec<Event> = events
        .variant::<Purchase>()
        .find(doc! {})
        .lean()
        .await
        .unwrap();
    assert_eq!(lean, vec![Event::Purchase(p.clone())]);
    // A change of kind inside update_with_retry: a checked rewrite, once.
    let done = events
        .update_with_retry(c.id, 3, |e: &mut Event| {
            let Event::Click(c) = e else {
                return Ok(());
            };
            *e = Event::Purchase(Purchase {
                id: c.id,
                cents: 1,
                tags: c.tags.clone(),
            });
            Ok(())
        })
        .await
        .unwrap();
    assert!(matches!(&*done, Event::Purchase(q) if q.cents == 1));
    assert_eq!(
        stored(&events, c.id).await.unwrap(),
        doc! { "kind": "Purchase", "_id": c.id, "tags": [], "__v": 1, "cents": 1_i64 }
    );
    assert_eq!(events.variant::<Click>().count(doc! {}).await.unwrap(), 0);
    t.finish().await;
}
