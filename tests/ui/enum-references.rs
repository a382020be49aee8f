// Referential rules hold between struct models: a rule on a field of an
// enum model's kind, or an enum model as a rule's target, is refused
// instead of being accepted and never enforced.
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[serde(tag = "kind")]
enum Event {
    Click {
        #[serde(rename = "_id")]
        id: ObjectId,
        #[odm(reference(on_delete = refuse))]
        by: Ref<User>,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[serde(tag = "kind")]
#[odm(referenced_by(User))]
enum Target {
    Page {
        #[serde(rename = "_id")]
        id: ObjectId,
    },
}

fn main() {}
