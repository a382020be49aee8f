//! `chrono::DateTime<Utc>` and `time::OffsetDateTime` fields (features
//! `chrono` and `time`): stored as BSON dates, loaded back, change-tracked
//! to the millisecond, and as `timestamps` fields on every write that
//! stamps. Run with `--features chrono,time`.
#![cfg(all(feature = "chrono", feature = "time"))]

use crate::common;

use chrono::{TimeZone, Utc};
use odm::bson::{Bson, DateTime};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "meetings", timestamps)]
#[serde(rename_all = "camelCase")]
struct Meeting {
    #[serde(rename = "_id")]
    id: i64,
    title: String,
    #[serde(with = "odm::time::chrono_datetime")]
    starts: chrono::DateTime<Utc>,
    #[serde(default, with = "odm::time::chrono_datetime_option")]
    ends: Option<chrono::DateTime<Utc>>,
    #[serde(with = "odm::time::chrono_datetime")]
    created_at: chrono::DateTime<Utc>,
    #[serde(default, with = "odm::time::chrono_datetime_option")]
    updated_at: Option<chrono::DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "shifts",
    timestamps(created_at = "born", updated_at = "seen")
)]
struct Shift {
    #[serde(rename = "_id")]
    id: i64,
    worker: String,
    #[serde(with = "odm::time::offset_datetime")]
    at: OffsetDateTime,
    #[serde(default, with = "odm::time::offset_datetime_option")]
    born: Option<OffsetDateTime>,
    #[serde(with = "odm::time::offset_datetime")]
    seen: OffsetDateTime,
}

/// 2026-03-01T09:30:00.123456789Z: finer than a millisecond.
fn fine_chrono() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 9, 30, 0).unwrap() + chrono::Duration::nanoseconds(123_456_789)
}

fn fine_time() -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp_nanos(1_772_357_400_123_456_789).unwrap()
}

fn meeting(id: i64) -> Meeting {
    Meeting {
        id,
        title: "plan".into(),
        starts: fine_chrono(),
        ends: None,
        created_at: chrono::DateTime::UNIX_EPOCH,
        updated_at: None,
    }
}

/// A shift at a whole millisecond.
fn shift(id: i64) -> Shift {
    Shift {
        id,
        worker: "ann".into(),
        at: OffsetDateTime::from_unix_timestamp_nanos(1_772_357_400_123_000_000).unwrap(),
        born: None,
        seen: OffsetDateTime::UNIX_EPOCH,
    }
}

fn millis_c(at: &chrono::DateTime<Utc>) -> DateTime {
    DateTime::from_millis(at.timestamp_millis())
}

fn millis_t(at: &OffsetDateTime) -> DateTime {
    DateTime::from_millis((at.unix_timestamp_nanos() / 1_000_000) as i64)
}

#[tokio::test]
async fn chrono_fields_are_bson_dates_cut_to_the_millisecond_without_phantom_changes() {
    let t = TestDb::new().await;
    let meetings = Meeting::model(&t.db);
    let mut m = meetings.create(meeting(1)).await.unwrap();
    let raw = common::stored(&meetings, 1_i64).await;
    assert_eq!(
        raw.get("starts"),
        Some(&Bson::DateTime(DateTime::from_millis(1_772_357_400_123)))
    );
    assert_eq!(raw.get("ends"), Some(&Bson::Null));
    let created = *raw.get_datetime("createdAt").unwrap();
    assert_eq!(millis_c(&m.created_at), created);
    assert_eq!(m.created_at.timestamp_subsec_nanos() % 1_000_000, 0);
    assert_eq!(m.updated_at.as_ref().map(millis_c), Some(created));

    // The sub-millisecond part stays in memory but is no change: a save
    // writes nothing, however many times.
    assert_eq!(m.starts, fine_chrono());
    let _: &mut Meeting = &mut m;
    assert_eq!(m.changes(), None);
    m.save().await.unwrap();
    m.save().await.unwrap();
    assert_eq!(
        common::stored(&meetings, 1_i64).await,
        raw,
        "nothing written"
    );
    // Another sub-millisecond value within the same millisecond: no change.
    m.starts += chrono::Duration::nanoseconds(1);
    assert_eq!(m.changes(), None);

    // A whole millisecond later is a change, written as a date.
    m.starts += chrono::Duration::milliseconds(1);
    m.ends = Some(m.starts + chrono::Duration::hours(1));
    let changes = m.changes().unwrap();
    let set = changes.1.get_document("$set").unwrap();
    assert_eq!(
        set.get("starts"),
        Some(&Bson::DateTime(DateTime::from_millis(1_772_357_400_124)))
    );
    m.save().await.unwrap();

    // Loaded back: the stored millisecond, in UTC, equal to what is stored.
    let loaded = meetings.find_by_id(1_i64).await.unwrap().unwrap();
    assert_eq!(millis_c(&loaded.starts), millis_c(&m.starts));
    assert_eq!(loaded.starts.timestamp_subsec_nanos(), 124_000_000);
    assert_eq!(
        loaded.ends.as_ref().map(millis_c),
        m.ends.as_ref().map(millis_c)
    );
    assert_eq!(loaded.updated_at, m.updated_at);

    // The features turn on bson's own conversions: a filter on a date.
    let found = meetings
        .find_one(doc! { "starts": { "$gt": Bson::from(fine_chrono()) } })
        .await
        .unwrap();
    assert_eq!(found.map(|f| f.id), Some(1));
    t.finish().await;
}

#[tokio::test]
async fn offset_datetime_fields_load_in_utc_and_offsets_are_no_change() {
    let t = TestDb::new().await;
    let shifts = Shift::model(&t.db);
    let mut fine = shift(1);
    fine.at = fine_time();
    let mut s = shifts.create(fine).await.unwrap();
    let raw = common::stored(&shifts, 1_i64).await;
    assert_eq!(
        raw.get("at"),
        Some(&Bson::DateTime(DateTime::from_millis(1_772_357_400_123)))
    );
    let born = *raw.get_datetime("born").unwrap();
    assert_eq!(s.born.as_ref().map(millis_t), Some(born));
    assert_eq!(millis_t(&s.seen), born);

    // The same instant at another offset serializes to the same date.
    s.at = s.at.to_offset(time::UtcOffset::from_hms(2, 0, 0).unwrap());
    assert_eq!(s.changes(), None);
    s.save().await.unwrap();
    assert_eq!(common::stored(&shifts, 1_i64).await, raw);

    let loaded = shifts.find_by_id(1_i64).await.unwrap().unwrap();
    assert_eq!(loaded.at.offset(), time::UtcOffset::UTC);
    assert_eq!(millis_t(&loaded.at), millis_t(&fine_time()));
    assert_eq!(loaded.born, s.born);
    assert_eq!(loaded.seen, s.seen);
    t.finish().await;
}

/// The stamps on every write that stamps, for both types: the value in
/// memory equals the stored date.
#[tokio::test]
async fn every_stamping_write_works_with_chrono_and_time_fields() {
    let t = TestDb::new().await;
    let meetings = Meeting::model(&t.db);
    let shifts = Shift::model(&t.db);

    // save (insert and update); whole milliseconds, so the value in memory
    // equals the stored one (a finer value is kept as given, see above).
    let mut whole = meeting(1);
    whole.starts = Utc.timestamp_millis_opt(1_772_357_400_123).unwrap();
    let mut m = meetings.create(whole).await.unwrap();
    let first = m.updated_at;
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    m.title = "replan".into();
    m.save().await.unwrap();
    assert!(m.updated_at > first);
    assert_eq!(*meetings.find_by_id(1_i64).await.unwrap().unwrap(), *m);

    // upsert, insert then update
    let up = shifts
        .upsert(doc! { "_id": 2_i64 })
        .set(doc! { "worker": "bo", "at": Bson::from(fine_time()) })
        .await
        .unwrap();
    assert_eq!(up.born.as_ref().map(millis_t), Some(millis_t(&up.seen)));
    assert_eq!(*shifts.find_by_id(2_i64).await.unwrap().unwrap(), *up);
    let up = shifts
        .upsert(doc! { "_id": 2_i64 })
        .set(doc! { "worker": "cy" })
        .await
        .unwrap();
    assert_eq!(*shifts.find_by_id(2_i64).await.unwrap().unwrap(), *up);

    // claim
    let claimed = meetings
        .claim(
            doc! { "title": "replan" },
            doc! { "$set": { "title": "held" } },
        )
        .await
        .unwrap()
        .unwrap();
    assert!(claimed.updated_at >= m.updated_at);
    assert_eq!(
        *meetings.find_by_id(1_i64).await.unwrap().unwrap(),
        *claimed
    );

    // update_with_retry
    let retried = shifts
        .update_with_retry(2_i64, 3, |s: &mut Shift| {
            s.worker = "di".into();
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(*shifts.find_by_id(2_i64).await.unwrap().unwrap(), *retried);

    // insert_many and bulk_save
    let created = shifts.insert_many((3..6).map(shift)).await.unwrap();
    let mut docs: Vec<_> = created.into_iter().map(Result::unwrap).collect();
    for d in &docs {
        assert!(d.born.is_some());
        assert_eq!(*shifts.find_by_id(d.id).await.unwrap().unwrap(), **d);
    }
    docs[0].worker = "ed".into();
    docs.push(shifts.new_doc(shift(6)));
    let outcomes = shifts.bulk_save(&mut docs).await.unwrap();
    assert!(outcomes.iter().all(Result::is_ok));
    for d in &docs {
        assert_eq!(*shifts.find_by_id(d.id).await.unwrap().unwrap(), **d);
    }

    // update_many stamps a date the types load
    let before = OffsetDateTime::now_utc() - time::Duration::milliseconds(1);
    shifts
        .update_many(doc! {}, doc! { "$set": { "worker": "all" } })
        .await
        .unwrap();
    for id in 2..=6_i64 {
        let s = shifts.find_by_id(id).await.unwrap().unwrap();
        assert_eq!(s.worker, "all");
        assert!(s.seen >= before, "shift {id} stamped by update_many");
        let raw = common::stored(&shifts, id).await;
        assert_eq!(raw.get_datetime("seen").unwrap(), &millis_t(&s.seen));
    }
    t.finish().await;
}

#[path = "../examples/features/time_types.rs"]
mod time_types_example;

#[tokio::test]
async fn the_example_stores_dates_and_server_stamps() {
    let t = TestDb::new().await;
    let o = time_types_example::run(&t.db).await.expect("ran");
    assert!(o.stored_as_date, "{o:?}");
    assert!(o.stored_equals_memory, "{o:?}");
    assert_eq!(o.resave_changes, None, "{o:?}");
    assert!(o.updated_after_created, "{o:?}");
    assert_eq!(o.found, 1, "{o:?}");
    t.finish().await;
}
