//! Printing for failure messages: BSON with its types visible, errors cut,
//! a save's `(filter, update)`, an error's variant.

use std::fmt;

use odm::bson::{Bson, Document as BsonDocument};

use crate::save_random::compare::Changes;

/// A BSON value with its types visible: `1` is an Int32, `Long(1)` an
/// Int64, `1.0` / `-0.0` / `NaN` doubles, `Oid(..abcdef)` the end of an
/// ObjectId.
pub fn sb(x: &Bson) -> String {
    match x {
        Bson::Double(f) => format!("{f:?}"),
        Bson::Int32(i) => i.to_string(),
        Bson::Int64(i) => format!("Long({i})"),
        Bson::String(s) => format!("{s:?}"),
        Bson::ObjectId(o) => format!("Oid(..{})", &o.to_hex()[18..]),
        Bson::Document(d) => sd(d),
        Bson::Array(a) => format!("[{}]", a.iter().map(sb).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

pub fn sd(d: &BsonDocument) -> String {
    let fields: Vec<String> = d.iter().map(|(k, v)| format!("{k:?}: {}", sb(v))).collect();
    format!("{{{}}}", fields.join(", "))
}

/// An error message, cut (driver errors carry the raw server reply).
pub fn short(e: impl fmt::Display) -> String {
    let s = e.to_string();
    match s.char_indices().nth(300) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

pub fn show_changes(c: &Changes) -> String {
    match c {
        None => "nothing".into(),
        Some((f, u)) => format!("filter {} update {}", sd(f), sd(u)),
    }
}

pub fn err_kind(e: &odm::Error) -> &'static str {
    match e {
        odm::Error::Version(_) => "Version",
        odm::Error::NotFound(_) => "NotFound",
        odm::Error::Validation(_) => "Validation",
        odm::Error::DuplicateKey(_) => "DuplicateKey",
        odm::Error::Deserialize(_) => "Deserialize",
        odm::Error::Serialize(_) => "Serialize",
        odm::Error::Driver(_) => "Driver",
        _ => "other",
    }
}
