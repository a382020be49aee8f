//! The models of the schema version tests: API.md's `User` at schema
//! version 2 (`mail` renamed to `email` at 1, `full_name` split into
//! `name` at 2), the same collection's model one release earlier (schema
//! version 1: what an older instance runs during a rolling deploy), and
//! stored documents of each version.
#![allow(dead_code)]

use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users", schema_version = 2, migrate = Self::upgrade)]
pub struct User {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// v1: renamed from `mail`.
    pub email: String,
    /// v2: split from `full_name`.
    pub name: Name,
    #[serde(default)]
    pub visits: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Name {
    pub first: String,
    pub last: String,
}

impl User {
    /// One step: `from` -> `from + 1`, on the stored document.
    pub fn upgrade(doc: &mut BsonDocument, from: u32) -> Result<(), MigrationError> {
        match from {
            0 => {
                let mail = doc.remove("mail").ok_or(MigrationError::new("no `mail`"))?;
                doc.insert("email", mail);
            }
            1 => {
                // A document without `full_name` is left without `name`:
                // it does not load, naming the field.
                if let Some(full) = doc.remove("full_name") {
                    let full = full.as_str().unwrap_or_default().to_string();
                    let (first, last) = full.split_once(' ').unwrap_or((&full, ""));
                    doc.insert("name", doc! { "first": first, "last": last });
                }
            }
            _ => return Err(MigrationError::new(format!("no step from {from}"))),
        }
        Ok(())
    }
}

/// The same collection's model at schema version 1, as an instance of the
/// previous release runs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users", schema_version = 1, migrate = Self::upgrade)]
pub struct UserV1 {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub email: String,
    /// Absent from a version 2 document: still readable.
    #[serde(default)]
    pub full_name: String,
    #[serde(default)]
    pub visits: i64,
}

impl UserV1 {
    pub fn upgrade(doc: &mut BsonDocument, from: u32) -> Result<(), MigrationError> {
        match from {
            0 => {
                let mail = doc.remove("mail").ok_or(MigrationError::new("no `mail`"))?;
                doc.insert("email", mail);
                Ok(())
            }
            _ => Err(MigrationError::new(format!("no step from {from}"))),
        }
    }
}

/// A stored user at schema version `version` (0, 1 or 2), as each release
/// wrote it, with version key `__v: 0`.
pub fn stored_at(version: u32, id: ObjectId, n: i64) -> BsonDocument {
    let (mail, full) = (format!("u{n}@x.io"), format!("First{n} Last{n}"));
    match version {
        0 => doc! { "_id": id, "mail": mail, "full_name": full, "visits": n, "__v": 0 },
        1 => doc! { "_id": id, "email": mail, "full_name": full, "visits": n, "__v": 0, "__sv": 1 },
        _ => doc! {
            "_id": id, "email": mail,
            "name": { "first": format!("First{n}"), "last": format!("Last{n}") },
            "visits": n, "__v": 0, "__sv": 2,
        },
    }
}

/// `doc` without odm's keys, its fields sorted: what a comparison of the
/// stored document with the value looks at.
pub fn fields(doc: &BsonDocument) -> Vec<(String, Bson)> {
    let mut fields: Vec<(String, Bson)> = doc
        .iter()
        .filter(|(k, _)| !["__v", "__sv", "__fence"].contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    fields.sort_by(|a, b| a.0.cmp(&b.0));
    fields
}
