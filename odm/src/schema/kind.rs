//! Enum models: what `#[derive(Document)]` records of an internally
//! tagged enum (`#[serde(tag = "kind")]`), and the per-variant glue its
//! generated code calls.
//!
//! One collection holds several kinds of document; the kind is the
//! stored value of the tag key, the variant's serde name. The rules that
//! use it (the kind in every write's filter, a change of kind rewriting
//! the document) are `plan::kind`; a kind's own handle is
//! `variant::Variant`.
//!
//! What the derive checks at compile time and what is left to run time:
//! the enum's own form (internally tagged, every variant a newtype or a
//! struct variant, a struct variant holding a field stored as `_id`, no
//! alias) it sees and checks. A newtype variant holds another type the
//! macro cannot see: its `_id` field is checked when a document of it is
//! inserted (an id odm cannot write fails the insert), and the fields the
//! model's `timestamps` write are written through serde (a type without
//! them does not keep them in memory, see [`stamp`]).

use mongodb::bson::{Bson, DateTime, Document as BsonDocument};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::bson_release::{self, DeError};
use crate::codec::keys::Hidden;
use crate::codec::rawde::{self, Seen};
use crate::codec::scan::Walk;

/// What an enum model records: the key the kind is stored under and the
/// stored name of each variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kinds {
    /// The serde tag: the top-level field holding the kind.
    pub key: &'static str,
    /// The stored name of every variant, in declaration order.
    pub names: &'static [&'static str],
}

/// The type `V` of a newtype variant of the enum model `T`: its stored
/// kind name, and how it becomes a `T`. `#[derive(Document)]` on the enum
/// implements it for each newtype variant's type; it is what
/// [`Model::variant`](crate::Model::variant) takes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kind of `{T}`",
    label = "not the type of a newtype variant of `{T}`",
    note = "`variant::<V>()` takes the type a newtype variant holds: for `enum Event {{ Click(Click) }}` it is `variant::<Click>()`"
)]
pub trait Kind<T>: Sized {
    /// The kind's stored name (the variant's serde name).
    const NAME: &'static str;

    /// The variant holding `self`.
    fn into_model(self) -> T;
}

/// The kind a stored document's bytes name: the string under `key` at its
/// top level. `None` when it has none, or not a string.
pub(crate) fn stored_kind<'a>(bytes: &'a [u8], key: &str) -> Option<&'a str> {
    // One walk of the top level: the kind is usually the first element.
    let mut walk = Walk::new(bytes).ok()?;
    while let Some(element) = walk.next_elem().ok()? {
        if element.key == key.as_bytes() {
            // A string: its length (with the NUL), its bytes, a NUL.
            const STRING: u8 = 0x02;
            let text = match (element.tag, element.value) {
                (STRING, [_, _, _, _, text @ .., 0]) => text,
                _ => return None,
            };
            return crate::codec::text::utf8(text);
        }
    }
    None
}

/// The fast decoding of a stored document into the newtype variant the
/// stored kind names (`decode(kind, bytes)` picks it): the tag is hidden
/// from the variant's type, as serde's internally tagged decoding hides
/// it. `None` sends the document to serde's own decoding.
pub fn decode_kind<'de, T>(
    bytes: &'de [u8],
    skip: Hidden,
    key: &'static str,
    decode: impl FnOnce(&str, Decoder<'de>) -> Option<(T, Seen<'de>)>,
) -> Option<(T, Seen<'de>)> {
    let kind = stored_kind(bytes, key)?;
    decode(kind, Decoder { bytes, skip, key })
}

/// What [`decode_kind`] hands the derive's dispatch: the stored document,
/// to decode as one variant's type.
pub struct Decoder<'de> {
    bytes: &'de [u8],
    skip: Hidden,
    key: &'static str,
}

impl<'de> Decoder<'de> {
    /// The document as a `V`, the tag hidden; `None` when the fast path
    /// gives up.
    pub fn decode<V: serde::Deserialize<'de>>(self) -> Option<(V, Seen<'de>)> {
        rawde::from_slice_hiding(self.bytes, self.skip, self.key)
    }
}

/// Writes `id` into the `_id` of `value` (a newtype variant's type, whose
/// fields the derive cannot see) through serde: serialized, `_id` set,
/// read back. An error when the type does not keep it (it has no field
/// stored as `_id`).
pub fn set_id<V: Serialize + DeserializeOwned>(value: &mut V, id: Bson) -> Result<(), DeError> {
    let keep = id.clone();
    let written = with_fields(value, &[("_id", id)])?;
    let kept = bson_release::to_bson(&written)
        .ok()
        .and_then(|b| b.as_document().and_then(|d| d.get("_id").cloned()))
        .unwrap_or(Bson::Null);
    *value = written;
    if kept != keep {
        return Err(serde::de::Error::custom(
            "the variant's type has no field stored as `_id`",
        ));
    }
    Ok(())
}

/// Writes the `timestamps` fields `names` (created, updated) of `value` (a
/// newtype variant's type) through serde: `created` when given, `updated`
/// always. A type without a field under one of the names does not keep
/// that time in memory (the store still gets it); a value that does not
/// read back is left as it was.
pub fn stamp<V: Serialize + DeserializeOwned>(
    value: &mut V,
    names: (&str, &str),
    created: Option<DateTime>,
    updated: DateTime,
) {
    let mut fields = vec![(names.1, Bson::DateTime(updated))];
    if let Some(at) = created {
        fields.push((names.0, Bson::DateTime(at)));
    }
    if let Ok(written) = with_fields(value, &fields) {
        *value = written;
    }
}

/// `value` serialized, the top-level `fields` set, and read back.
fn with_fields<V: Serialize + DeserializeOwned>(
    value: &V,
    fields: &[(&str, Bson)],
) -> Result<V, DeError> {
    let mut document: BsonDocument = match bson_release::to_bson(value) {
        Ok(Bson::Document(document)) => document,
        Ok(other) => {
            return Err(serde::de::Error::custom(format!(
                "the variant's type serializes as {other}, not a document"
            )))
        }
        Err(e) => return Err(serde::de::Error::custom(e)),
    };
    for (name, value) in fields {
        document.insert(*name, value.clone());
    }
    bson_release::from_bson(Bson::Document(document))
}

#[cfg(test)]
mod tests {
    use mongodb::bson::oid::ObjectId;
    use mongodb::bson::rawdoc;
    use serde::{Deserialize, Serialize};

    use super::*;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Click {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        id: Option<ObjectId>,
        element: String,
        #[serde(rename = "updatedAt")]
        updated: Option<DateTime>,
    }

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct NoId {
        element: String,
    }

    #[test]
    fn stored_kind_reads_the_top_level_string() {
        let raw = rawdoc! { "_id": 1, "kind": "Click", "inner": { "kind": "x" } };
        assert_eq!(stored_kind(raw.as_bytes(), "kind"), Some("Click"));
        let raw = rawdoc! { "_id": 1, "kind": 3 };
        assert_eq!(stored_kind(raw.as_bytes(), "kind"), None);
        assert_eq!(stored_kind(raw.as_bytes(), "__t"), None);
    }

    #[test]
    fn set_id_goes_through_serde_and_refuses_a_type_without_an_id() {
        let mut click = Click {
            id: None,
            element: "#buy".into(),
            updated: None,
        };
        let oid = ObjectId::new();
        set_id(&mut click, Bson::ObjectId(oid)).unwrap();
        assert_eq!(click.id, Some(oid));
        let mut no_id = NoId {
            element: "x".into(),
        };
        let e = set_id(&mut no_id, Bson::ObjectId(oid)).unwrap_err();
        assert!(e.to_string().contains("no field stored as `_id`"), "{e}");
        assert_eq!(no_id.element, "x");
    }

    #[test]
    fn stamp_writes_the_fields_the_type_has() {
        let mut click = Click {
            id: None,
            element: "#buy".into(),
            updated: None,
        };
        let at = DateTime::from_millis(1_700_000_000_000);
        stamp(&mut click, ("createdAt", "updatedAt"), Some(at), at);
        assert_eq!(click.updated, Some(at));
        let mut no_id = NoId {
            element: "x".into(),
        };
        stamp(&mut no_id, ("createdAt", "updatedAt"), None, at);
        assert_eq!(no_id.element, "x");
    }

    #[test]
    fn decode_kind_hides_the_tag_and_picks_by_the_stored_kind() {
        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Strict {
            #[serde(rename = "_id")]
            id: i32,
            element: String,
        }
        let raw = rawdoc! { "_id": 7, "kind": "Click", "element": "#buy", "__v": 2 };
        let decoded = decode_kind(raw.as_bytes(), Some("__v").into(), "kind", |kind, d| {
            assert_eq!(kind, "Click");
            d.decode::<Strict>()
        });
        let (value, _) = decoded.expect("the fast path decodes it");
        assert_eq!(
            value,
            Strict {
                id: 7,
                element: "#buy".into()
            }
        );
        let raw = rawdoc! { "_id": 7, "element": "#buy" };
        let none = decode_kind(raw.as_bytes(), Hidden::NONE, "kind", |_, d| {
            d.decode::<Strict>()
        });
        assert!(none.is_none(), "no stored kind: serde's decoding tells why");
    }
}
