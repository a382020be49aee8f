//! A batch sent by `bulkWrite` moves each update's filter and update into
//! the driver's write model; when the driver then finds the server too old
//! for `bulkWrite` (before MongoDB 8.0), odm builds them again for the
//! `update` command. The local server has `bulkWrite`, so this builds a
//! batch without one (`odm::__private::bulk_build`, `BulkPath::Auto`),
//! which panics unless what is built again is what the models took.

use mongodb::bson::rawdoc;
use odm::__private::{bulk_build, BulkPath};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "refills", optimistic_concurrency(include(name)))]
struct Thing {
    #[serde(rename = "_id")]
    id: i64,
    name: String,
    #[odm(skip_versioning)]
    tags: Vec<String>,
    notes: Vec<String>,
}

#[tokio::test]
async fn the_statements_built_again_are_the_ones_sent() {
    let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/")
        .await
        .unwrap();
    let things = Thing::model(&client.database("odm_refill"));
    let loaded = |id: i64| {
        things
            .hydrate(&rawdoc! { "_id": id, "name": "a", "tags": ["x", "y"], "notes": ["n", "m"], "__v": 3 })
            .unwrap()
    };
    let mut docs = vec![loaded(1), loaded(2), loaded(3), loaded(4), loaded(5)];
    // A checked field: the version in the filter.
    docs[0].name = "b".into();
    // A push to an unversioned array: a guard, no version.
    docs[1].tags.push("z".into());
    // A whole unversioned array rewritten: the rewrite guard.
    docs[2].tags.reverse();
    // A versioned array rewritten: version check and bump.
    docs[3].notes.reverse();
    // docs[4] untouched: a check, no statement.
    docs.push(things.new_doc(Thing {
        id: 6,
        name: "new".into(),
        tags: vec![],
        notes: vec![],
    }));
    let expected: Vec<_> = docs.iter().map(|d| d.changes()).collect();
    assert!(expected[..4].iter().all(Option::is_some));
    assert_eq!(bulk_build(&things, &mut docs, BulkPath::Auto), 5);
    // Nothing committed.
    let after: Vec<_> = docs.iter().map(|d| d.changes()).collect();
    assert_eq!(after, expected);
}
