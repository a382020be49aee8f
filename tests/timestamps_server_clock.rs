//! `#[odm(timestamps(server_clock))]`: every write that stamps takes the
//! time from the server (`hello`'s `localTime`, read by odm before the
//! write), the stored document and the `Doc` hold that same time, and a
//! write that stamps nothing asks for no time.

use crate::common;

use common::Monitored;
use odm::bson::DateTime;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "tickets", timestamps(server_clock))]
#[serde(rename_all = "camelCase")]
struct Ticket {
    #[serde(rename = "_id")]
    id: i64,
    state: String,
    created_at: Option<DateTime>,
    updated_at: Option<DateTime>,
}

fn ticket(id: i64) -> Ticket {
    Ticket {
        id,
        state: "open".into(),
        created_at: None,
        updated_at: None,
    }
}

/// The `localTime` of each `hello` odm sent since the last `clear`.
fn hellos(m: &Monitored) -> Vec<DateTime> {
    m.monitor
        .named("hello")
        .iter()
        .map(|sent| {
            *sent
                .reply()
                .expect("hello answered")
                .get_datetime("localTime")
                .expect("a localTime")
        })
        .collect()
}

/// The one `hello` odm sent since the last `clear`: its time.
fn one_hello(m: &Monitored) -> DateTime {
    let times = hellos(m);
    assert_eq!(times.len(), 1, "one read of the server's clock");
    m.monitor.clear();
    times[0]
}

/// The stored document, loaded: must equal the `Doc` in memory.
async fn stored(tickets: &Model<Ticket>, id: i64) -> Ticket {
    tickets.find_by_id(id).await.unwrap().unwrap().clone()
}

#[tokio::test]
async fn saves_stamp_with_the_servers_time_and_memory_equals_stored() {
    let m = Monitored::new("server-clock-save").await;
    let tickets = Ticket::model(m.db());
    m.monitor.clear();

    let mut t = tickets.create(ticket(1)).await.unwrap();
    let at = one_hello(&m);
    assert_eq!((t.created_at, t.updated_at), (Some(at), Some(at)));
    assert_eq!(
        stored(&tickets, 1).await,
        *t,
        "stored == memory after insert"
    );
    assert_eq!(t.changes(), None, "the stamped value is the snapshot");
    m.monitor.clear();

    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    t.state = "closed".into();
    t.save().await.unwrap();
    let later = one_hello(&m);
    assert!(later > at);
    assert_eq!((t.created_at, t.updated_at), (Some(at), Some(later)));
    assert_eq!(
        stored(&tickets, 1).await,
        *t,
        "stored == memory after update"
    );
    m.monitor.clear();

    // A save that writes nothing reads no time and stamps nothing.
    t.save().await.unwrap();
    assert!(hellos(&m).is_empty());
    assert_eq!(t.updated_at, Some(later));

    // A failed save leaves the value unstamped.
    tickets
        .collection()
        .delete_one(doc! { "_id": 1_i64 })
        .await
        .unwrap();
    t.state = "reopened".into();
    assert!(matches!(t.save().await, Err(Error::NotFound(_))));
    assert_eq!(t.updated_at, Some(later));
    m.finish().await;
}

#[tokio::test]
async fn upsert_claim_and_retry_stamp_with_the_servers_time() {
    let m = Monitored::new("server-clock-atomic").await;
    let tickets = Ticket::model(m.db());
    m.monitor.clear();

    // An upsert that inserts: both times are the server's.
    let up = tickets
        .upsert(doc! { "_id": 2_i64 })
        .set(doc! { "state": "open" })
        .await
        .unwrap();
    let at = one_hello(&m);
    assert_eq!((up.created_at, up.updated_at), (Some(at), Some(at)));
    assert_eq!(stored(&tickets, 2).await, *up);
    m.monitor.clear();

    // An upsert that updates: updated_at only.
    let up = tickets
        .upsert(doc! { "_id": 2_i64 })
        .set(doc! { "state": "held" })
        .await
        .unwrap();
    let again = one_hello(&m);
    assert_eq!((up.created_at, up.updated_at), (Some(at), Some(again)));
    assert_eq!(stored(&tickets, 2).await, *up);

    let claimed = tickets
        .claim(
            doc! { "state": "held" },
            doc! { "$set": { "state": "taken" } },
        )
        .await
        .unwrap()
        .expect("one to claim");
    let claim_at = one_hello(&m);
    assert_eq!(claimed.updated_at, Some(claim_at));
    assert_eq!(stored(&tickets, 2).await, *claimed);

    let retried = tickets
        .update_with_retry(2_i64, 3, |t: &mut Ticket| {
            t.state = "done".into();
            Ok(())
        })
        .await
        .unwrap();
    let retry_at = one_hello(&m);
    assert_eq!(retried.updated_at, Some(retry_at));
    assert_eq!(retried.created_at, Some(at));
    assert_eq!(stored(&tickets, 2).await, *retried);
    m.finish().await;
}

#[tokio::test]
async fn batches_read_the_clock_once_and_update_many_stamps_with_it() {
    let m = Monitored::new("server-clock-batch").await;
    let tickets = Ticket::model(m.db());
    m.monitor.clear();

    let created = tickets.insert_many((10..14).map(ticket)).await.unwrap();
    let at = one_hello(&m);
    let mut docs: Vec<_> = created.into_iter().map(Result::unwrap).collect();
    for d in &docs {
        assert_eq!((d.created_at, d.updated_at), (Some(at), Some(at)));
        assert_eq!(stored(&tickets, d.id).await, **d);
    }
    m.monitor.clear();

    for d in &mut docs[..2] {
        d.state = "closed".into();
    }
    docs.push(tickets.new_doc(ticket(14)));
    let outcomes = tickets.bulk_save(&mut docs).await.unwrap();
    assert!(outcomes.iter().all(Result::is_ok));
    let batch_at = one_hello(&m);
    for d in &docs {
        let expected = if d.state == "closed" || d.id == 14 {
            batch_at
        } else {
            at
        };
        assert_eq!(d.updated_at, Some(expected), "ticket {}", d.id);
        assert_eq!(stored(&tickets, d.id).await, **d);
    }
    m.monitor.clear();

    let report = tickets
        .update_many(
            doc! { "state": "open" },
            doc! { "$set": { "state": "old" } },
        )
        .await
        .unwrap();
    assert_eq!(report.modified(), 3);
    let many_at = one_hello(&m);
    for id in [12, 13, 14] {
        assert_eq!(stored(&tickets, id).await.updated_at, Some(many_at));
    }
    m.finish().await;
}

#[tokio::test]
async fn patched_saves_and_batches_take_the_servers_time() {
    // A save reached through `field_mut` is a patch of the snapshot: the
    // server's time replaces the client's in the patch, alone and in a
    // batch, and the commit keeps it.
    let m = Monitored::new("server-clock-patch").await;
    let tickets = Ticket::model(m.db());
    let ids = [21, 22];
    tickets.insert_many(ids.map(ticket)).await.unwrap();
    let f = Ticket::fields();
    let mut t = tickets.find_by_id(21).await.unwrap().unwrap();
    m.monitor.clear();
    for state in ["a", "b", "c"] {
        *t.field_mut(f.state()) = state.into();
        let patched = odm::__private::patched_plans();
        t.save().await.unwrap();
        assert!(odm::__private::patched_plans() > patched, "a patch");
        let at = one_hello(&m);
        assert_eq!(t.updated_at, Some(at));
        assert_eq!(stored(&tickets, 21).await, *t, "stored == memory");
    }
    let mut docs = vec![t, tickets.find_by_id(22).await.unwrap().unwrap()];
    for round in ["d", "e"] {
        for d in &mut docs {
            *d.field_mut(f.state()) = round.into();
        }
        m.monitor.clear();
        let outcomes = tickets.bulk_save(&mut docs).await.unwrap();
        assert!(outcomes.iter().all(Result::is_ok));
        let at = one_hello(&m);
        for d in &docs {
            assert_eq!(d.updated_at, Some(at), "ticket {}", d.id);
            assert_eq!(stored(&tickets, d.id).await, **d, "stored == memory");
        }
    }
    m.finish().await;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "client_clock", timestamps)]
#[serde(rename_all = "camelCase")]
struct Plain {
    #[serde(rename = "_id")]
    id: i64,
    created_at: Option<DateTime>,
    updated_at: Option<DateTime>,
}

#[tokio::test]
async fn the_clients_clock_sends_no_hello() {
    let m = Monitored::new("client-clock").await;
    let plain = Plain::model(m.db());
    m.monitor.clear();
    let p = plain
        .create(Plain {
            id: 1,
            created_at: None,
            updated_at: None,
        })
        .await
        .unwrap();
    assert!(p.created_at.is_some());
    assert!(hellos(&m).is_empty(), "no clock read without server_clock");
    m.finish().await;
}
