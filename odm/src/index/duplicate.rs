//! The structured parts of a duplicate-key error (E11000) that the driver's
//! error types leave out.
//!
//! MongoDB (4.2+) and SecantusDB put `keyPattern` and `keyValue` next to
//! `code: 11000`: inside the `writeErrors` entry for insert / update /
//! delete, at the top level of the reply for `findAndModify`. The driver
//! keeps only `errmsg` in its `WriteError` / `CommandError`, but attaches the
//! whole reply to the error (`server_response`), so they are read from there.
//!
//! `insert_one` is the exception: the driver rebuilds its error and drops the
//! reply. For an insert the key pattern is then taken from the declared index
//! the message names (or `_id_`), and the key value from the inserted
//! document, which is what the server compared.

use mongodb::bson::raw::{RawBsonRef, RawDocument};
use mongodb::bson::{Bson, Document as BsonDocument};

use crate::error::Error;
use crate::meta::Meta;

const DUPLICATE_KEY: i32 = 11000;

/// `keyPattern` and `keyValue` of the duplicate-key error in the server's
/// reply, when it has them.
#[derive(Debug, Default)]
pub(crate) struct ServerDetails {
    pub key_pattern: Option<BsonDocument>,
    pub key_value: Option<BsonDocument>,
}

pub(crate) fn server_details(e: &mongodb::error::Error) -> ServerDetails {
    let Some(reply) = e.server_response() else {
        return ServerDetails::default();
    };
    let entry = write_error(reply).unwrap_or(reply);
    ServerDetails {
        key_pattern: sub_document(entry, "keyPattern"),
        key_value: sub_document(entry, "keyValue"),
    }
}

/// The first `writeErrors` entry with code 11000.
fn write_error(reply: &RawDocument) -> Option<&RawDocument> {
    let errors = reply.get_array("writeErrors").ok()?;
    errors
        .into_iter()
        .filter_map(|e| e.ok()?.as_document())
        .find(|e| code(e) == Some(DUPLICATE_KEY))
}

fn code(doc: &RawDocument) -> Option<i32> {
    match doc.get("code").ok()?? {
        RawBsonRef::Int32(n) => Some(n),
        RawBsonRef::Int64(n) => i32::try_from(n).ok(),
        RawBsonRef::Double(n) => Some(n as i32),
        _ => None,
    }
}

fn sub_document(doc: &RawDocument, key: &str) -> Option<BsonDocument> {
    let raw = doc.get_document(key).ok()?;
    BsonDocument::try_from(raw).ok()
}

/// Completes the duplicate-key error of an insert of `inserted` whose
/// reply the driver dropped; any other error is returned as it is.
pub(crate) fn complete_insert(err: Error, meta: &Meta, inserted: &RawDocument) -> Error {
    let Error::DuplicateKey(mut d) = err else {
        return err;
    };
    if d.key_pattern.is_none() {
        d.key_pattern = d
            .index
            .as_deref()
            .and_then(|name| declared_pattern(meta, name))
            .map(Box::new);
    }
    if d.key_value.is_none() {
        d.key_value = d
            .key_pattern
            .as_ref()
            .and_then(|p| values_at(p, inserted))
            .map(Box::new);
    }
    Error::DuplicateKey(d)
}

fn declared_pattern(meta: &Meta, name: &str) -> Option<BsonDocument> {
    if name == "_id_" {
        return Some(mongodb::bson::doc! { "_id": 1 });
    }
    let spec = meta.indexes.iter().find(|i| i.name == name)?;
    Some(spec.keys_document())
}

/// `{path: value}` for every path of `pattern`, `null` where the document
/// has none; `None` when a path runs through an array (the server then
/// compared one element, which one is unknown here).
fn values_at(pattern: &BsonDocument, doc: &RawDocument) -> Option<BsonDocument> {
    let mut out = BsonDocument::new();
    for path in pattern.keys() {
        let mut current = doc;
        let mut value = Bson::Null;
        let mut parts = path.split('.').peekable();
        while let Some(part) = parts.next() {
            match current.get(part).ok()? {
                None => break,
                Some(RawBsonRef::Array(_)) => return None,
                Some(RawBsonRef::Document(inner)) if parts.peek().is_some() => current = inner,
                Some(_) if parts.peek().is_some() => break,
                Some(found) => value = Bson::try_from(found).ok()?,
            }
        }
        out.insert(path.clone(), value);
    }
    Some(out)
}

/// The index name in an E11000 message: the text between `index: ` and
/// ` dup key:` (names may contain spaces), without the `db.coll.$` prefix
/// that servers before 3.4 wrote.
pub(crate) fn index_from_message(message: &str) -> Option<String> {
    let at = message.find(" index: ")? + " index: ".len();
    let rest = &message[at..];
    let name = match rest.find(" dup key:") {
        Some(end) => &rest[..end],
        None => rest.split_whitespace().next().unwrap_or(""),
    };
    let name = name.rsplit_once(".$").map_or(name, |(_, n)| n).trim();
    (!name.is_empty()).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::{index_from_message, values_at};
    use mongodb::bson::{doc, rawdoc, Bson};

    #[test]
    fn key_values_are_read_from_the_document() {
        let d = rawdoc! { "a": 1, "b": { "c": "x" }, "tags": ["t"] };
        assert_eq!(
            values_at(&doc! { "a": 1, "b.c": -1, "z": 1, "a.q": 1 }, &d),
            Some(doc! { "a": 1, "b.c": "x", "z": Bson::Null, "a.q": Bson::Null })
        );
        assert_eq!(values_at(&doc! { "tags": 1 }, &d), None);
    }

    #[test]
    fn index_names_are_read_from_messages() {
        let m = "E11000 duplicate key error collection: app.users index: email_1 dup key: { email: \"a\" }";
        assert_eq!(index_from_message(m).as_deref(), Some("email_1"));
        let m =
            "Plan executor error during findAndModify :: caused by :: E11000 duplicate key error \
                 collection: app.rides index: one active ride dup key: { vehicle_id: \"v1\" }";
        assert_eq!(index_from_message(m).as_deref(), Some("one active ride"));
        let m = "E11000 duplicate key error index: app.users.$email_1  dup key: { : \"a\" }";
        assert_eq!(index_from_message(m).as_deref(), Some("email_1"));
        assert_eq!(index_from_message("E11000 duplicate key error"), None);
    }
}
