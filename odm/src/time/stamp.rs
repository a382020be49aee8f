//! `#[odm(timestamps)]` fields of the `chrono` and `time` types: the stamp
//! (a whole millisecond) converted, so the value equals what is stored.

use mongodb::bson::DateTime;

use crate::timestamps::TimestampField;

#[cfg(feature = "chrono")]
impl TimestampField for ::chrono::DateTime<::chrono::Utc> {
    fn __odm_put(&mut self, at: DateTime) {
        if let Some(at) = super::chrono_datetime::from_bson(at) {
            *self = at;
        }
    }
}

#[cfg(feature = "chrono")]
impl TimestampField for Option<::chrono::DateTime<::chrono::Utc>> {
    fn __odm_put(&mut self, at: DateTime) {
        if let Some(at) = super::chrono_datetime::from_bson(at) {
            *self = Some(at);
        }
    }
}

#[cfg(feature = "time")]
impl TimestampField for ::time::OffsetDateTime {
    fn __odm_put(&mut self, at: DateTime) {
        if let Some(at) = super::offset_datetime::from_bson(at) {
            *self = at;
        }
    }
}

#[cfg(feature = "time")]
impl TimestampField for Option<::time::OffsetDateTime> {
    fn __odm_put(&mut self, at: DateTime) {
        if let Some(at) = super::offset_datetime::from_bson(at) {
            *self = Some(at);
        }
    }
}
