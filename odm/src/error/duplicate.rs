//! A duplicate key (server error 11000) read out of a driver error,
//! whatever its shape, into a [`DuplicateKeyError`].
//!
//! The index name and the key come from the server's message
//! (`E11000 duplicate key error collection: app.users index: email_1 dup
//! key: { email: "a@b.c" }`). MongoDB (4.2+) and SecantusDB also put
//! `keyPattern` and `keyValue` next to `code: 11000`: inside the
//! `writeErrors` entry for insert / update / delete, at the top level of
//! the reply for `findAndModify`. The driver keeps only `errmsg` in its
//! `WriteError` / `CommandError`, but attaches the whole reply to the error
//! (`server_response`), so they are read from there.
//!
//! `insert_one` is the exception: the driver rebuilds its error and drops the
//! reply. For an insert the key pattern is then taken from the declared index
//! the message names (or `_id_`), and the key value from the inserted
//! document, which is what the server compared.

use mongodb::bson::raw::{RawBsonRef, RawDocument};
use mongodb::bson::{Bson, Document as BsonDocument};

use super::classify::duplicate_key;
use super::{Cause, DuplicateKeyError, Error};

/// The duplicate-key error in `e`, or `e` back when it holds none (the
/// classifier, [`duplicate_key`], decides). `collection` is the
/// operation's, when known; else it is read from the message.
pub(crate) fn from_driver(
    e: mongodb::error::Error,
    collection: Option<&str>,
) -> Result<DuplicateKeyError, mongodb::error::Error> {
    let Some(found) = duplicate_key(&e) else {
        return Err(e);
    };
    let message = found.message.to_string();
    let details = server_details(found.reply);
    let mut d = parse(collection, message);
    if d.key.is_none() {
        d.key = details.key_value.as_ref().map(ToString::to_string);
    }
    d.key_pattern = details.key_pattern.map(Box::new);
    d.key_value = details.key_value.map(Box::new);
    d.cause = Cause::new(e);
    Ok(d)
}

/// Reads `collection: DB.NAME index: NAME dup key: { ... }` out of the
/// server's E11000 message.
pub(super) fn parse(collection: Option<&str>, message: String) -> DuplicateKeyError {
    let index = index_from_message(&message);
    let key = message
        .find("dup key: ")
        .map(|at| message[at + "dup key: ".len()..].trim().to_string());
    let collection = match collection {
        Some(name) => name.to_string(),
        None => collection_from_message(&message).unwrap_or_default(),
    };
    DuplicateKeyError {
        collection,
        index,
        key: key.filter(|s| !s.is_empty()),
        key_pattern: None,
        key_value: None,
        message,
        cause: Cause::default(),
    }
}

/// The collection in an E11000 message: the namespace after
/// `collection: `, without its database (database names hold no `.`).
fn collection_from_message(message: &str) -> Option<String> {
    let at = message.find("collection: ")? + "collection: ".len();
    let namespace = message[at..].split_whitespace().next()?;
    let (_, name) = namespace.split_once('.')?;
    (!name.is_empty()).then(|| name.to_string())
}

/// `keyPattern` and `keyValue` of the duplicate-key error in the server's
/// reply, when it has them.
#[derive(Debug, Default)]
struct ServerDetails {
    key_pattern: Option<BsonDocument>,
    key_value: Option<BsonDocument>,
}

fn server_details(reply: Option<&RawDocument>) -> ServerDetails {
    let Some(entry) = reply else {
        return ServerDetails::default();
    };
    ServerDetails {
        key_pattern: sub_document(entry, "keyPattern"),
        key_value: sub_document(entry, "keyValue"),
    }
}

fn sub_document(doc: &RawDocument, key: &str) -> Option<BsonDocument> {
    let raw = doc.get_document(key).ok()?;
    BsonDocument::try_from(raw).ok()
}

/// Completes the duplicate-key error of an insert of `inserted` whose
/// reply the driver dropped; any other error is returned as it is.
/// `declared` gives the keys of the model's index of that name (see
/// `Meta::index_keys`).
pub(crate) fn complete_insert(
    err: Error,
    declared: impl Fn(&str) -> Option<BsonDocument>,
    inserted: &RawDocument,
) -> Error {
    let Error::DuplicateKey(mut d) = err else {
        return err;
    };
    if d.key_pattern.is_none() {
        d.key_pattern = d.index.as_deref().and_then(&declared).map(Box::new);
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
fn index_from_message(message: &str) -> Option<String> {
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
    use super::{collection_from_message, index_from_message, parse, values_at};
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

    #[test]
    fn duplicate_message_is_parsed() {
        let d = parse(
            None,
            "E11000 duplicate key error collection: app.users index: email_1 dup key: { email: \"a@b.c\" }".into(),
        );
        assert_eq!(d.collection, "users");
        assert_eq!(d.index.as_deref(), Some("email_1"));
        assert_eq!(d.key.as_deref(), Some("{ email: \"a@b.c\" }"));
        assert_eq!(
            d.to_string(),
            "duplicate key in collection \"users\" on index \"email_1\": { email: ? }"
        );
        let d = parse(Some("people"), d.message);
        assert_eq!(d.collection, "people");
    }

    #[test]
    fn collections_are_read_from_messages() {
        let m = "E11000 duplicate key error collection: app.a.b index: x_1 dup key: { x: 1 }";
        assert_eq!(collection_from_message(m).as_deref(), Some("a.b"));
        assert_eq!(collection_from_message("E11000 duplicate key error"), None);
    }
}
