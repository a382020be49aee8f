//! The date-time helpers through odm's codec: stored as BSON dates cut to
//! the millisecond (towards the past, the same for both crates), and a
//! stored date out of a type's range refused without showing it.

use ::chrono::{DateTime, TimeZone, Utc};
use ::time::OffsetDateTime;
use mongodb::bson::{doc, Bson, DateTime as BsonDate};
use serde::{Deserialize, Serialize};

use crate::bson_release::testing::raw;
use crate::codec;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Both {
    #[serde(with = "crate::time::chrono_datetime")]
    c: DateTime<Utc>,
    #[serde(with = "crate::time::offset_datetime")]
    t: OffsetDateTime,
    #[serde(default, with = "crate::time::chrono_datetime_option")]
    co: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::offset_datetime_option")]
    to: Option<OffsetDateTime>,
}

fn both(nanos: i128) -> Both {
    let t = OffsetDateTime::from_unix_timestamp_nanos(nanos).unwrap();
    let c = Utc.timestamp_nanos(nanos as i64);
    Both {
        c,
        t,
        co: Some(c),
        to: None,
    }
}

#[test]
fn stored_as_dates_cut_to_the_millisecond_towards_the_past() {
    for (nanos, millis) in [
        (1_772_357_400_123_456_789_i128, 1_772_357_400_123_i64),
        (-1_500_000, -2),
        (-1_000_000, -1),
        (999_999, 0),
    ] {
        let stored = codec::to_raw(&both(nanos)).unwrap();
        let at = Bson::DateTime(BsonDate::from_millis(millis));
        let expected = doc! { "c": at.clone(), "t": at.clone(), "co": at, "to": Bson::Null };
        assert_eq!(stored, raw(&expected), "{nanos} ns");
        let loaded: Both = codec::decode(&stored, codec::Hidden::NONE).unwrap();
        assert_eq!(loaded.c.timestamp_millis(), millis);
        assert_eq!(
            loaded.t.unix_timestamp_nanos(),
            i128::from(millis) * 1_000_000
        );
        assert_eq!(loaded.to, None);
    }
}

#[test]
fn a_missing_option_loads_as_none() {
    let at = BsonDate::from_millis(5);
    let loaded: Both =
        codec::decode(&raw(&doc! { "c": at, "t": at }), codec::Hidden::NONE).unwrap();
    assert_eq!((loaded.co, loaded.to), (None, None));
}

#[test]
fn a_date_out_of_range_is_refused_without_its_value() {
    // 292 million years on: a valid BSON date, outside both crates' ranges.
    let far = BsonDate::MAX;
    let ok = BsonDate::from_millis(0);
    for (stored, ty) in [
        (doc! { "c": ok, "t": far }, "time::OffsetDateTime"),
        (doc! { "c": far, "t": ok }, "chrono::DateTime"),
    ] {
        let Err((_, e)) = codec::decode::<Both>(&raw(&stored), codec::Hidden::NONE) else {
            panic!("out of range loaded");
        };
        let text = crate::bson_release::de_message(&e);
        assert!(
            text.contains(&format!("outside the range of {ty}")),
            "{text}"
        );
        assert!(!text.contains("9223372036854775807"), "{text}");
    }
}
