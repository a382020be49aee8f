use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Serialize, Deserialize)]
struct Purchase {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Serialize, Deserialize, Document)]
#[serde(tag = "kind")]
enum Event {
    Click(Click),
}

fn main() {
    let client = mongodb::Client::with_options(Default::default()).unwrap();
    let events = Event::model(&client.database("app"));
    // `Purchase` is no variant of `Event`.
    let _ = events.variant::<Purchase>();
}
