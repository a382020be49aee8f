use super::*;
use mongodb::bson::{doc, oid::ObjectId};

#[test]
fn a_document_shows_its_shape_and_its_id() {
    let id = ObjectId::parse_str("64b7f0c2a1b2c3d4e5f60718").unwrap();
    let filter = doc! { "_id": id, "email": "a@b.c", "n": { "$gt": 5 } };
    assert_eq!(
        document_text(&filter, false, true),
        "{ _id: ObjectId(\"64b7f0c2a1b2c3d4e5f60718\"), email: ?, n: { $gt: ? } }"
    );
    assert_eq!(
        document_text(&filter, false, false),
        "{ _id: ?, email: ?, n: { $gt: ? } }"
    );
    assert_eq!(document_text(&filter, true, false), filter.to_string());
    // An `_id` that is itself a query is a value.
    let by_ids = doc! { "_id": { "$in": ["a", "b"] } };
    assert_eq!(document_text(&by_ids, false, true), "{ _id: { $in: ? } }");
    assert_eq!(document_text(&doc! {}, false, true), "{}");
}

#[test]
fn a_duplicate_key_message_hides_the_key() {
    let m = "E11000 duplicate key error collection: app.users index: email_1 dup key: { email: \"a}b@c\" }";
    assert_eq!(
        server_message(m, false),
        "E11000 duplicate key error collection: app.users index: email_1 dup key: { ? }"
    );
    assert_eq!(server_message(m, true), m);
    let with_tail = "dup key: { k: { a: 1 } }, more";
    assert_eq!(server_message(with_tail, false), "dup key: { ? }, more");
    let other = "Document failed validation";
    assert_eq!(server_message(other, false), other);
}

#[test]
fn serde_messages_hide_the_value_they_quote() {
    let cases = [
        (
            "invalid type: string \"secret\", expected i32",
            "invalid type: string ?, expected i32",
        ),
        (
            "invalid value: integer `-1`, expected u8",
            "invalid value: integer ?, expected u8",
        ),
        (
            "unknown variant `PURPLE`, expected one of `Red`, `Green`",
            "unknown variant ?, expected one of `Red`, `Green`",
        ),
        (
            "invalid type: string \"a \\\" b\", expected a sequence",
            "invalid type: string ?, expected a sequence",
        ),
        (
            "invalid type: map, expected a string",
            "invalid type: map, expected a string",
        ),
        ("missing field `title`", "missing field `title`"),
        (
            "unknown field `x`, expected `a`",
            "unknown field `x`, expected `a`",
        ),
    ];
    for (message, masked) in cases {
        assert_eq!(serde_message(message, false), masked, "{message}");
        assert_eq!(serde_message(message, true), message);
    }
}

#[test]
fn values_are_off_without_a_trace_subscriber() {
    assert!(!values_shown());
    assert_eq!(Value(&"a@b.c", false).to_string(), "?");
    assert_eq!(Value(&"a@b.c", true).to_string(), "a@b.c");
}

#[test]
fn a_key_text_keeps_its_field_names() {
    assert_eq!(
        masked_key_text("{ email: \"a,b}@c\" }").as_deref(),
        Some("{ email: ? }")
    );
    assert_eq!(
        masked_key_text(
            "{ tenant: \"t\", n: { a: 1, b: 2 }, id: ObjectId('64b7f0c2a1b2c3d4e5f60718') }"
        )
        .as_deref(),
        Some("{ tenant: ?, n: ?, id: ? }")
    );
    assert_eq!(masked_key_text("not a key"), None);
}
