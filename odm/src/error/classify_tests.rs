//! The classifier on errors built as the driver builds them from a reply.

use mongodb::bson::doc;
use mongodb::error::{CommandError, ErrorKind, WriteConcernError, WriteError, WriteFailure};

use super::*;
use crate::bson_release::testing::from_document;

fn command(code: i32, name: &str, message: &str) -> mongodb::error::Error {
    let c: CommandError =
        from_document(doc! { "code": code, "codeName": name, "errmsg": message }).unwrap();
    ErrorKind::Command(c).into()
}

fn write(code: i32, message: &str) -> mongodb::error::Error {
    let w: WriteError = from_document(doc! { "code": code, "errmsg": message }).unwrap();
    ErrorKind::Write(WriteFailure::WriteError(w)).into()
}

fn write_concern(code: i32) -> mongodb::error::Error {
    let w: WriteConcernError =
        from_document(doc! { "code": code, "codeName": "X", "errmsg": "timeout" }).unwrap();
    ErrorKind::Write(WriteFailure::WriteConcernError(w)).into()
}

fn io() -> mongodb::error::Error {
    let e = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset");
    ErrorKind::Io(std::sync::Arc::new(e)).into()
}

const E11000: &str =
    "E11000 duplicate key error collection: app.users index: email_1 dup key: { email: \"a\" }";

#[test]
fn a_duplicate_key_is_one_in_a_write_or_a_command_error() {
    for e in [write(11000, E11000), command(11000, "DuplicateKey", E11000)] {
        let class = classify(&e);
        assert!(class.duplicate_key, "{e:?}");
        assert_eq!(class.code, Some(11000));
        match into_error(e, Some("users")) {
            Error::DuplicateKey(d) => {
                assert_eq!(d.index.as_deref(), Some("email_1"));
                assert_eq!(d.collection, "users");
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(classify(&write(11001, E11000)).duplicate_key);
    let other = write(121, "Document failed validation");
    assert!(!classify(&other).duplicate_key);
    assert!(matches!(into_error(other, None), Error::Driver(_)));
}

#[test]
fn the_code_is_the_servers_in_every_shape() {
    assert_eq!(code(&command(26, "NamespaceNotFound", "ns")), Some(26));
    assert_eq!(code(&write(121, "invalid")), Some(121));
    assert_eq!(code(&write_concern(64)), Some(64));
    assert_eq!(code(&io()), None);
    assert_eq!(
        command_refusal(&command(85, "IndexOptionsConflict", "conflict")),
        Some((85, "conflict"))
    );
    assert_eq!(command_refusal(&write(85, "conflict")), None);
}

#[test]
fn a_missing_collection_and_a_time_limit_are_read_from_the_code() {
    assert!(classify(&command(26, "NamespaceNotFound", "ns")).namespace_not_found);
    // Only a refused command says the collection is missing.
    assert!(!classify(&write(26, "ns")).namespace_not_found);
    assert!(classify(&command(50, "MaxTimeMSExpired", "late")).time_limit);
    assert!(classify(&write_concern(50)).time_limit);
    assert!(!classify(&command(51, "Other", "x")).time_limit);
}

#[test]
fn only_a_refusal_says_a_write_did_not_apply() {
    assert!(!classify(&write(11000, E11000)).may_have_applied);
    assert!(!classify(&command(2, "BadValue", "bad")).may_have_applied);
    assert!(classify(&write_concern(64)).may_have_applied);
    assert!(classify(&io()).may_have_applied);
}

#[test]
fn an_error_without_labels_is_neither_transient_nor_in_doubt() {
    let class = classify(&command(112, "WriteConflict", "conflict"));
    assert!(!class.transient_transaction && !class.commit_unknown);
}

#[test]
fn the_duplicates_entry_of_a_reply_is_found_by_its_code_in_any_number_type() {
    use mongodb::bson::rawdoc;
    let reply = rawdoc! {
        "ok": 1,
        "writeErrors": [
            { "index": 0, "code": 121, "errmsg": "invalid" },
            { "index": 1, "code": 11000_i64, "keyPattern": { "email": 1 } },
        ],
    };
    let entry = duplicate_write_error(&reply).unwrap();
    assert_eq!(entry.get_i32("index").unwrap(), 1);
    assert_eq!(raw_code(&rawdoc! { "code": 11001.0 }), Some(11001));
    assert_eq!(raw_code(&rawdoc! { "code": "11000" }), None);
    assert!(duplicate_write_error(&rawdoc! { "ok": 1, "code": 11000 }).is_none());
}
