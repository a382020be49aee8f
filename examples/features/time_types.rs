//! Date-time fields of the `chrono` and `time` crates (features `chrono`
//! and `time`), stored as BSON dates, and `timestamps` stamped with the
//! server's clock.
//!
//! serde alone would store a `chrono::DateTime<Utc>` as text, which sorts
//! and compares as text on the server; `#[serde(with = "odm::time::...")]`
//! stores a BSON date. A date holds milliseconds: a finer value is stored
//! cut to the millisecond, and saving it again writes nothing.
//! `timestamps(server_clock)` takes the stamps from the server's clock,
//! one clock for every instance of the application, and the `Doc` holds
//! the stored time after each save.

use chrono::{DateTime, Duration, Utc};
use odm::bson::Bson;
use odm::prelude::*;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "bookings", timestamps(server_clock))]
#[serde(rename_all = "camelCase")]
pub struct Booking {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub room: String,
    /// A chrono field, stored as a BSON date.
    #[serde(with = "odm::time::chrono_datetime")]
    pub starts: DateTime<Utc>,
    /// `timestamps` fields of the `time` crate.
    #[serde(with = "odm::time::offset_datetime")]
    pub created_at: OffsetDateTime,
    #[serde(default, with = "odm::time::offset_datetime_option")]
    pub updated_at: Option<OffsetDateTime>,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// `starts` is stored as a BSON date (not text).
    pub stored_as_date: bool,
    /// The stored document equals the `Doc` after each save.
    pub stored_equals_memory: bool,
    /// A second save of the unchanged booking wrote nothing.
    pub resave_changes: Option<mongodb::bson::Document>,
    /// `updated_at` moved on with the update, `created_at` did not.
    pub updated_after_created: bool,
    /// Bookings starting within the next day, found by a date filter.
    pub found: usize,
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let bookings = Booking::model(db);
    // A whole millisecond, so the value in memory equals the stored one.
    let starts = DateTime::from_timestamp_millis(Utc::now().timestamp_millis()).unwrap()
        + Duration::hours(2);
    let mut booking = bookings
        .create(Booking {
            id: ObjectId::new(),
            room: "lisbon".into(),
            starts,
            created_at: OffsetDateTime::UNIX_EPOCH,
            updated_at: None,
        })
        .await?;
    println!("created at {} (the server's clock)", booking.created_at);

    let raw = bookings
        .collection()
        .find_one(doc! { "_id": booking.id })
        .await?
        .expect("stored");
    let stored_as_date = matches!(raw.get("starts"), Some(Bson::DateTime(_)));
    let mut stored_equals_memory =
        bookings.find_by_id(booking.id).await?.as_deref() == Some(&*booking);

    booking.room = "porto".into();
    booking.save().await?;
    stored_equals_memory &= bookings.find_by_id(booking.id).await?.as_deref() == Some(&*booking);
    let updated_after_created = booking.updated_at.is_some_and(|u| u >= booking.created_at);
    println!("updated at {:?}", booking.updated_at);

    // Nothing changed: the save writes nothing, stamps nothing.
    let _: &mut Booking = &mut booking;
    let resave_changes = booking.changes().map(|(_, update)| update);
    booking.save().await?;

    // bson's own chrono conversion (turned on by the feature) in a filter.
    let found = bookings
        .find(doc! { "starts": { "$lt": Bson::from(Utc::now() + Duration::days(1)) } })
        .await?
        .len();
    Ok(Outcome {
        stored_as_date,
        stored_equals_memory,
        resave_changes,
        updated_after_created,
        found,
    })
}
