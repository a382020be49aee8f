use std::any::TypeId;

use mongodb::bson::{doc, rawdoc, Bson};

use super::*;
use crate::refs::linked::OnDelete;
use crate::schema::meta::Meta;

fn meta() -> &'static Meta {
    static META: Meta = Meta {
        name: "User",
        collection: "users",
        versioning: crate::schema::meta::Versioning::DEFAULT,
        fields: &[],
        indexes: &[],
        timestamps: None,
        shard_key: &[],
        hooks: false,
        kinds: None,
        schema: None,
    };
    &META
}

fn rule(path: &'static str, shape: Shape) -> Rule {
    Rule {
        path,
        on_delete: OnDelete::Refuse,
        shape,
        target: TypeId::of::<()>,
        target_meta: meta,
    }
}

fn rules() -> [Rule; 3] {
    [
        rule("author", Shape::One),
        rule("editor", Shape::Optional),
        rule("reviewers", Shape::Many),
    ]
}

fn ids(n: &[i64]) -> Vec<Bson> {
    n.iter().map(|n| Bson::Int64(*n)).collect()
}

#[test]
fn stored_ids_are_read_per_rule() {
    let stored = rawdoc! { "author": 1_i64, "editor": null, "reviewers": [2_i64, 3_i64], "x": 9 };
    assert_eq!(
        stored_ids(&rules(), &stored),
        vec![ids(&[1]), ids(&[]), ids(&[2, 3])]
    );
    assert_eq!(stored_ids(&rules(), &rawdoc! {}), vec![ids(&[]); 3]);
}

#[test]
fn a_save_writes_the_ids_of_each_changed_field() {
    let before = vec![ids(&[1]), ids(&[]), ids(&[2, 3])];
    // Nothing changed: nothing to mark.
    assert!(none(&written(Some(&before), &before)));
    // The same id in another width is the same id.
    let widths = vec![vec![Bson::Int32(1)], ids(&[]), ids(&[2, 3])];
    assert!(none(&written(Some(&before), &widths)));
    // A new author, a pushed reviewer: the changed fields' ids, whole.
    let now = vec![ids(&[4]), ids(&[]), ids(&[2, 3, 5])];
    assert_eq!(
        written(Some(&before), &now),
        vec![ids(&[4]), ids(&[]), ids(&[2, 3, 5])]
    );
    // A reorder rewrites the list: every id of it.
    let reordered = vec![ids(&[1]), ids(&[]), ids(&[3, 2])];
    assert_eq!(written(Some(&before), &reordered)[2], ids(&[3, 2]));
    // A new document writes everything.
    assert_eq!(written(None, &now), now);
    // Removing only: nothing to mark is left in that field.
    let removed = vec![ids(&[1]), ids(&[]), ids(&[2])];
    assert_eq!(written(Some(&before), &removed)[2], ids(&[2]));
    assert_eq!(minus(&now, &before), vec![ids(&[4]), ids(&[]), ids(&[5])]);
}

#[test]
fn an_update_writes_the_ids_of_its_operators() {
    let update = doc! {
        "$set": { "author": 7_i64, "title": "x", "reviewers.2": 8_i64, "editor": null },
        "$push": { "reviewers": { "$each": [9_i64, 10_i64] } },
        "$addToSet": { "reviewers": 11_i64 },
        "$pull": { "reviewers": 1_i64 },
        "$unset": { "editor": "" },
        "$inc": { "visits": 1 },
    };
    let targets = written_by_update(&rules(), "posts", &update).unwrap();
    assert_eq!(targets, vec![ids(&[7]), ids(&[]), ids(&[8, 9, 10, 11])]);
    let positional =
        doc! { "$set": { "reviewers.$": 3_i64, "reviewers.$[r]": 4_i64, "reviewers": [5_i64] } };
    assert_eq!(
        written_by_update(&rules(), "posts", &positional).unwrap()[2],
        ids(&[3, 4, 5])
    );
    let on_insert = doc! { "$setOnInsert": { "editor": 6_i64 } };
    assert_eq!(
        written_by_update(&rules(), "posts", &on_insert).unwrap()[1],
        ids(&[6])
    );
}

#[test]
fn an_update_odm_cannot_check_is_refused() {
    for update in [
        doc! { "$rename": { "draftAuthor": "author" } },
        doc! { "$inc": { "author": 1 } },
        doc! { "$max": { "reviewers.0": 1 } },
        doc! { "$set": { "author.x": 1 } },
        doc! { "$set": { "reviewers.0.x": 1 } },
        doc! { "$push": { "author": 1 } },
        doc! { "$currentDate": { "editor": true } },
    ] {
        let Err(Error::Validation(e)) = written_by_update(&rules(), "posts", &update) else {
            panic!("{update} was not refused");
        };
        assert_eq!(e.paths().len(), 1, "{update}");
        assert!(
            e.errors()[0]
                .message()
                .contains("referential rule of \"posts\""),
            "{e}"
        );
    }
    // Renaming a rule field away, or touching other fields, writes no id.
    let fine = doc! { "$rename": { "author": "oldAuthor" }, "$inc": { "authorCount": 1 } };
    assert!(none(&written_by_update(&rules(), "posts", &fine).unwrap()));
}

#[test]
fn an_upsert_also_writes_what_its_filter_fixes() {
    let filter = doc! { "author": 1_i64, "$and": [{ "editor": { "$eq": 2_i64 } }], "reviewers": { "$in": [3_i64] } };
    let set = doc! { "reviewers": [4_i64] };
    let on_insert = doc! { "editor": 5_i64 };
    let targets = written_by_upsert(&rules(), "posts", &filter, &set, &on_insert).unwrap();
    assert_eq!(targets, vec![ids(&[1]), ids(&[5, 2]), ids(&[4])]);
}
