// Malformed referential rules, all reported in one compile.
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(referenced_by())]
struct User {
    #[serde(rename = "_id")]
    #[odm(reference(on_delete = refuse))]
    id: ObjectId,
    #[odm(reference(on_delete = nuke))]
    a: Ref<User>,
    #[odm(reference)]
    b: Ref<User>,
    #[odm(reference(when = refuse))]
    c: Ref<User>,
    #[serde(skip)]
    #[odm(reference(on_delete = refuse))]
    d: Option<Ref<User>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(referenced_by(User, User))]
struct Org {
    #[serde(rename = "_id")]
    id: ObjectId,
}

fn main() {}
