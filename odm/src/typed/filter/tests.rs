//! The documents the typed builders make, on paths built by hand as the
//! derive would (`FieldPath<type, Join<Root, segment>>`).

use mongodb::bson::{doc, Bson, Document};

use super::Filter;
use crate::fields::{FieldPath, Join, Root, Segment};
use crate::typed::{Sort, Update};

macro_rules! segments {
    ($($name:ident = $text:literal),*) => {$(
        enum $name {}
        impl Segment for $name {
            const NAME: &'static str = $text;
        }
    )*};
}

segments!(
    Age = "age",
    Status = "status",
    Tags = "tags",
    Nick = "nick",
    Score = "score",
    Big = "big"
);

fn age() -> FieldPath<u32, Join<Root, Age>> {
    FieldPath::NEW
}
fn status() -> FieldPath<String, Join<Root, Status>> {
    FieldPath::NEW
}
fn tags() -> FieldPath<Vec<String>, Join<Root, Tags>> {
    FieldPath::NEW
}
fn nick() -> FieldPath<Option<String>, Join<Root, Nick>> {
    FieldPath::NEW
}
fn score() -> FieldPath<i32, Join<Root, Score>> {
    FieldPath::NEW
}
fn big() -> FieldPath<u64, Join<Root, Big>> {
    FieldPath::NEW
}

fn d(f: impl Into<Document>) -> Document {
    f.into()
}

#[test]
fn comparisons() {
    assert_eq!(d(status().eq("A")), doc! { "status": "A" });
    assert_eq!(d(status().ne("A")), doc! { "status": { "$ne": "A" } });
    assert_eq!(d(score().gt(1)), doc! { "score": { "$gt": 1 } });
    assert_eq!(d(score().gte(1)), doc! { "score": { "$gte": 1 } });
    assert_eq!(d(score().lt(1)), doc! { "score": { "$lt": 1 } });
    assert_eq!(d(score().lte(1)), doc! { "score": { "$lte": 1 } });
    // A u32 is stored as an Int64 by bson: the filter encodes it the same.
    assert_eq!(d(age().gte(18)), doc! { "age": { "$gte": 18_i64 } });
    assert_eq!(
        d(status().is_in(["A", "B"])),
        doc! { "status": { "$in": ["A", "B"] } }
    );
    assert_eq!(
        d(score().not_in([1, 2])),
        doc! { "score": { "$nin": [1, 2] } }
    );
    assert_eq!(
        d(nick().exists(false)),
        doc! { "nick": { "$exists": false } }
    );
    assert_eq!(d(nick().eq(None)), doc! { "nick": Bson::Null });
    assert_eq!(d(nick().eq("n")), doc! { "nick": "n" });
}

#[test]
fn a_document_value_is_compared_with_eq() {
    let f = Filter::condition("meta", "$eq", Ok(Bson::Document(doc! { "$x": 1 })));
    assert_eq!(d(f), doc! { "meta": { "$eq": { "$x": 1 } } });
}

#[test]
fn arrays() {
    assert_eq!(d(tags().contains("t")), doc! { "tags": "t" });
    assert_eq!(d(tags().eq("t")), doc! { "tags": "t" });
    assert_eq!(d(tags().eq(vec!["a".to_string()])), doc! { "tags": ["a"] });
    assert_eq!(
        d(tags().all(["a", "b"])),
        doc! { "tags": { "$all": ["a", "b"] } }
    );
    assert_eq!(d(tags().size(2)), doc! { "tags": { "$size": 2_i64 } });
    assert_eq!(
        d(tags().elem_match(doc! { "$gte": "m" })),
        doc! { "tags": { "$elemMatch": { "$gte": "m" } } }
    );
}

#[test]
fn and_merges_different_fields_and_lists_the_rest() {
    assert_eq!(
        d(score().gt(1).and(status().eq("A"))),
        doc! { "score": { "$gt": 1 }, "status": "A" }
    );
    assert_eq!(
        d(score().gt(1).and(score().lt(5)).and(status().eq("A"))),
        doc! { "$and": [{ "score": { "$gt": 1 } }, { "score": { "$lt": 5 } }, { "status": "A" }] }
    );
    assert_eq!(
        d(Filter::all().and(status().eq("A"))),
        doc! { "status": "A" }
    );
    assert_eq!(d(status().eq("A").and(doc! {})), doc! { "status": "A" });
    assert_eq!(
        d(status().eq("A").and(doc! { "$or": [{ "x": 1 }] })),
        doc! { "$and": [{ "status": "A" }, { "$or": [{ "x": 1 }] }] }
    );
}

#[test]
fn or_nor_not() {
    assert_eq!(
        d(score().gt(1).or(status().eq("A")).or(nick().exists(true))),
        doc! { "$or": [{ "score": { "$gt": 1 } }, { "status": "A" }, { "nick": { "$exists": true } }] }
    );
    assert_eq!(
        d(score().gt(1).nor(status().eq("A"))),
        doc! { "$nor": [{ "score": { "$gt": 1 } }, { "status": "A" }] }
    );
    assert_eq!(
        d(status().eq("A").not()),
        doc! { "$nor": [{ "status": "A" }] }
    );
}

#[test]
fn a_value_without_bson_form_makes_a_filter_the_server_refuses() {
    let f = big().eq(u64::MAX).and(status().eq("A"));
    let sent = d(f);
    assert_eq!(
        sent.keys().collect::<Vec<_>>(),
        vec!["$odmUnencodableValue"]
    );
    let reason = sent.get_str("$odmUnencodableValue").unwrap();
    assert!(reason.starts_with("the value for `big`:"), "{reason}");
    let u = big().set(u64::MAX).and(status().set("A"));
    assert!(d(u).contains_key("$odmUnencodableValue"));
}

#[test]
fn updates_combine_by_operator() {
    let u: Update = status()
        .set("X")
        .and(score().inc(2))
        .and(nick().unset())
        .and(tags().push("p"))
        .and(age().set(3))
        .and(score().inc(-1));
    assert_eq!(
        d(u),
        doc! {
            "$set": { "status": "X", "age": 3_i64 },
            "$inc": { "score": -1 },
            "$unset": { "nick": "" },
            "$push": { "tags": "p" },
        }
    );
    assert_eq!(d(tags().pull("q")), doc! { "$pull": { "tags": "q" } });
    assert_eq!(d(nick().set(None)), doc! { "$set": { "nick": Bson::Null } });
    assert_eq!(
        d(status()
            .set("X")
            .and(doc! { "$currentDate": { "at": true } })),
        doc! { "$set": { "status": "X" }, "$currentDate": { "at": true } }
    );
}

#[test]
fn sorts_keep_their_order() {
    let s: Sort = score().desc().then(status().asc()).and(doc! { "_id": 1 });
    assert_eq!(d(s), doc! { "score": -1, "status": 1, "_id": 1 });
}
