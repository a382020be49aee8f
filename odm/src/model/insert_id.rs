//! Ids assigned on insert.
//!
//! A new document whose `_id` serializes as missing or null (the usual
//! `#[serde(rename = "_id", skip_serializing_if = "Option::is_none")] id:
//! Option<ObjectId>`) would get an id from the server that the `Doc` never
//! learns, so its next save could not find it. odm generates the
//! `ObjectId` itself instead, writes it into the value's id field before
//! the insert is sent, and checks that the value now serializes with it.
//! Writing it first means a save retried after an unknown outcome (the
//! insert may or may not have landed) sends the same id, and fails with a
//! duplicate key on `_id` rather than inserting a second document.

use mongodb::bson::oid::ObjectId;
use mongodb::bson::Bson;
use serde::de::DeserializeOwned;

use crate::codec;
use crate::error::{Error, Result, ValidationError};
use crate::model::doc::Doc;
use crate::model::Document;
use crate::plan::request::Plan;

/// Stores `id` in `field`, deserialized into the field's type. The derive's
/// `__odm_set_id` calls it on the field stored as `_id`.
#[doc(hidden)]
pub fn set_id<F: DeserializeOwned>(
    field: &mut F,
    id: Bson,
) -> Result<(), crate::bson_release::DeError> {
    *field = crate::bson_release::from_bson(id)?;
    Ok(())
}

/// The insert plan of a new document, with an `_id`: the value's own, or
/// one generated and written into the value first. A value whose id field
/// cannot hold the generated `ObjectId` is refused with
/// [`Error::Validation`] on `_id`, and nothing is sent.
pub(crate) fn plan_with_id<T: Document>(doc: &mut Doc<T>) -> Result<Plan> {
    let plan = doc.plan()?;
    if codec::read_id(plan.current.of_new())? != Bson::Null {
        return Ok(plan);
    }
    let oid = ObjectId::new();
    let value: &mut T = doc;
    if let Err(e) = value.__odm_set_id(Bson::ObjectId(oid)) {
        return Err(refused::<T>(format!(
            "its field cannot hold the ObjectId odm generates: {e}"
        )));
    }
    let plan = doc.plan()?;
    let id = codec::read_id(plan.current.of_new())?;
    if id != Bson::ObjectId(oid) {
        // Put the value back as it was (its id serialized as missing or null).
        let value: &mut T = doc;
        let _ = value.__odm_set_id(Bson::Null);
        return Err(refused::<T>(format!(
            "after odm wrote the ObjectId {oid} into its field, the value serializes `_id` as {id}"
        )));
    }
    Ok(plan)
}

/// The error for a new document odm cannot give an id.
fn refused<T: Document>(why: String) -> Error {
    let meta = T::__odm_meta();
    let field = meta
        .fields
        .iter()
        .find(|(_, bson)| *bson == "_id")
        .map_or("_id", |(rust, _)| rust);
    Error::Validation(
        ValidationError::new(
            "_id",
            format!(
                "is missing or null, and odm cannot generate one for `{}`: {why}; set `{field}` before saving",
                meta.name
            ),
        )
        .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_id_deserializes_into_the_field_type() {
        let oid = ObjectId::new();
        let mut optional: Option<ObjectId> = None;
        set_id(&mut optional, Bson::ObjectId(oid)).unwrap();
        assert_eq!(optional, Some(oid));
        let mut any: Bson = Bson::Null;
        set_id(&mut any, Bson::ObjectId(oid)).unwrap();
        assert_eq!(any, Bson::ObjectId(oid));
        let mut text: Option<String> = None;
        let e = set_id(&mut text, Bson::ObjectId(oid)).unwrap_err();
        assert_eq!(text, None);
        assert!(e.to_string().contains("invalid type"), "{e}");
    }
}
