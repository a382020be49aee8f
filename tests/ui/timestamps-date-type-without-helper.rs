use odm::prelude::*;
use serde::{Deserialize, Serialize};

// Stand-ins with the date types' names: the check reads the type as written.
mod chrono {
    #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
    pub struct DateTime<Tz>(pub Tz);
    #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
    pub struct Utc;
}
mod time {
    #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
    pub struct OffsetDateTime;
}

// odm stamps a BSON date, which serde alone reads into neither type.
#[derive(Serialize, Deserialize, Document)]
#[odm(timestamps)]
#[serde(rename_all = "camelCase")]
struct Note {
    #[serde(rename = "_id")]
    id: ObjectId,
    created_at: chrono::DateTime<chrono::Utc>,
    updated_at: Option<time::OffsetDateTime>,
}

fn main() {}
