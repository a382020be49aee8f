use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Serialize, Deserialize)]
struct Hidden {
    #[serde(rename = "_id")]
    id: ObjectId,
}

// A kind stored and read back as anything but its own type, and the
// attributes a struct variant does not take.
#[derive(Serialize, Deserialize, Document)]
#[odm(timestamps)]
#[serde(tag = "kind")]
enum Event {
    Click(Click),
    #[serde(skip)]
    Hidden(Hidden),
    #[serde(rename(serialize = "visit", deserialize = "Visit"))]
    #[odm(nested, validate = Self::check)]
    Visit {
        #[serde(rename = "_id")]
        id: ObjectId,
        #[serde(rename = "createdAt")]
        created_at: Option<odm::bson::DateTime>,
    },
}

impl Event {
    fn check(&self) -> Result<(), ValidationError> {
        Ok(())
    }
}

#[derive(Serialize, Deserialize, Document)]
#[serde(tag = "kind")]
enum Generic<T> {
    One {
        #[serde(rename = "_id")]
        id: ObjectId,
        value: T,
    },
}

fn main() {}
