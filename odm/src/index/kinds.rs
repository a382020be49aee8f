//! The index kinds beyond ascending / descending keys: text, 2dsphere,
//! hashed and wildcard keys, TTL (`expireAfterSeconds`), text options and
//! collation. What `createIndexes` is sent for each, how `listIndexes`
//! shows it back, and how the two are compared. Pure.

use mongodb::bson::{doc, Bson, Document as BsonDocument};

/// One key of an index: its direction or kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// `1`.
    Asc,
    /// `-1`.
    Desc,
    /// `"text"`.
    Text,
    /// `"2dsphere"`.
    Sphere,
    /// `"hashed"`.
    Hashed,
}

impl From<Key> for Bson {
    fn from(key: Key) -> Bson {
        match key {
            Key::Asc => Bson::Int32(1),
            Key::Desc => Bson::Int32(-1),
            Key::Text => Bson::String("text".into()),
            Key::Sphere => Bson::String("2dsphere".into()),
            Key::Hashed => Bson::String("hashed".into()),
        }
    }
}

/// A text index's options; every field empty when the index has no text key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextOptions {
    /// `(BSON field name, weight)`; a text field not listed weighs 1.
    pub weights: &'static [(&'static str, i32)],
    /// `default_language`; MongoDB's default is `"english"`.
    pub default_language: Option<&'static str>,
    /// `language_override`; MongoDB's default is `"language"`.
    pub language_override: Option<&'static str>,
}

impl TextOptions {
    /// No text options.
    pub const NONE: TextOptions = TextOptions {
        weights: &[],
        default_language: None,
        language_override: None,
    };
}

/// An index collation: the locale and the options given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Collation {
    /// `locale`, e.g. `"en"`.
    pub locale: &'static str,
    /// `strength`, 1 to 5 (2: case-insensitive).
    pub strength: Option<i32>,
    /// `caseLevel`.
    pub case_level: Option<bool>,
    /// `caseFirst`: `"upper"`, `"lower"` or `"off"`.
    pub case_first: Option<&'static str>,
    /// `numericOrdering`.
    pub numeric_ordering: Option<bool>,
}

impl Collation {
    /// The collation document, with the options given.
    pub fn to_document(&self) -> BsonDocument {
        let mut out = doc! { "locale": self.locale };
        if let Some(n) = self.strength {
            out.insert("strength", n);
        }
        if let Some(b) = self.case_level {
            out.insert("caseLevel", b);
        }
        if let Some(s) = self.case_first {
            out.insert("caseFirst", s);
        }
        if let Some(b) = self.numeric_ordering {
            out.insert("numericOrdering", b);
        }
        out
    }
}

/// The key pattern `createIndexes` takes: `{title: "text", loc: "2dsphere"}`.
pub(crate) fn keys_document(keys: &[(&str, Key)]) -> BsonDocument {
    keys.iter()
        .map(|(field, key)| (field.to_string(), Bson::from(*key)))
        .collect()
}

/// The key pattern as `listIndexes` shows it: the text keys become one
/// `_fts: "text", _ftsx: 1` pair where the first of them stood.
pub(crate) fn listed_keys_document(keys: &[(&str, Key)]) -> BsonDocument {
    let mut out = BsonDocument::new();
    for (field, key) in keys {
        match key {
            Key::Text if out.contains_key("_fts") => {}
            Key::Text => {
                out.insert("_fts", "text");
                out.insert("_ftsx", 1);
            }
            other => {
                out.insert(field.to_string(), Bson::from(*other));
            }
        }
    }
    out
}

/// Whether the index has a text key.
pub(crate) fn is_text(keys: &[(&str, Key)]) -> bool {
    keys.iter().any(|(_, k)| *k == Key::Text)
}

/// The text options as sent: the weights given, the languages given.
pub(crate) fn text_fields(keys: &[(&str, Key)], text: &TextOptions, spec: &mut BsonDocument) {
    if !is_text(keys) {
        return;
    }
    if !text.weights.is_empty() {
        let weights: BsonDocument = text
            .weights
            .iter()
            .map(|(f, w)| (f.to_string(), Bson::Int32(*w)))
            .collect();
        spec.insert("weights", weights);
    }
    if let Some(language) = text.default_language {
        spec.insert("default_language", language);
    }
    if let Some(field) = text.language_override {
        spec.insert("language_override", field);
    }
}

/// The weight of every text field, as `listIndexes` shows it (1 unless given).
fn all_weights(keys: &[(&str, Key)], text: &TextOptions) -> BsonDocument {
    keys.iter()
        .filter(|(_, k)| *k == Key::Text)
        .map(|(field, _)| {
            let weight = text
                .weights
                .iter()
                .find(|(f, _)| f == field)
                .map_or(1, |(_, w)| *w);
            (field.to_string(), Bson::Int32(weight))
        })
        .collect()
}

/// A number of any BSON type as `f64`.
fn number(value: &Bson) -> Option<f64> {
    match value {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(n) => Some(*n),
        _ => None,
    }
}

fn same_numbers(a: &BsonDocument, b: &BsonDocument) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(k, v)| b.get(k).and_then(number) == number(v) && number(v).is_some())
}

/// Every way the kind options of `existing` differ from the declared ones:
/// TTL, the text options and the collation. Options of the collation that
/// were not declared are not compared (MongoDB fills in the locale's
/// defaults).
pub(crate) fn differences(
    keys: &[(&str, Key)],
    expire_after: Option<i64>,
    text: &TextOptions,
    collation: Option<&Collation>,
    existing: &BsonDocument,
) -> Vec<String> {
    let mut out = Vec::new();
    let found_ttl = existing.get("expireAfterSeconds");
    let same_ttl = match (expire_after, found_ttl) {
        (None, None) => true,
        (Some(d), Some(f)) => number(f) == Some(d as f64),
        _ => false,
    };
    if !same_ttl {
        out.push(format!(
            "expireAfterSeconds: declared {}, existing {}",
            expire_after.map_or_else(|| "none".to_string(), |d| d.to_string()),
            found_ttl.map_or_else(|| "none".to_string(), ToString::to_string)
        ));
    }
    if is_text(keys) {
        let declared = all_weights(keys, text);
        let found = existing
            .get_document("weights")
            .cloned()
            .unwrap_or_default();
        if !same_numbers(&declared, &found) {
            out.push(format!("weights: declared {declared}, existing {found}"));
        }
        for (option, declared, default) in [
            ("default_language", text.default_language, "english"),
            ("language_override", text.language_override, "language"),
        ] {
            let declared = declared.unwrap_or(default);
            let found = existing.get_str(option).unwrap_or(default);
            if declared != found {
                out.push(format!(
                    "{option}: declared \"{declared}\", existing \"{found}\""
                ));
            }
        }
    }
    let found = existing.get_document("collation").ok();
    match (collation, found) {
        (None, None) => {}
        (Some(declared), Some(found)) => {
            let declared = declared.to_document();
            let same = declared.iter().all(|(k, v)| {
                let f = found.get(k);
                f == Some(v) || (number(v).is_some() && f.and_then(number) == number(v))
            });
            if !same {
                out.push(format!("collation: declared {declared}, existing {found}"));
            }
        }
        (declared, found) => out.push(format!(
            "collation: declared {}, existing {}",
            declared.map_or_else(|| "none".to_string(), |c| c.to_document().to_string()),
            found.map_or_else(|| "none".to_string(), ToString::to_string)
        )),
    }
    out
}

/// The order to create indexes in: kinds some servers lack first (text,
/// hashed, wildcard, 2dsphere, collation, TTL), plain ones last, so a
/// server that refuses a kind refuses it before the plain indexes exist.
pub(crate) fn risk(keys: &[(&str, Key)], expire_after: Option<i64>, collation: bool) -> u8 {
    let has = |k: Key| keys.iter().any(|(_, key)| *key == k);
    if has(Key::Text) {
        0
    } else if has(Key::Hashed) {
        1
    } else if keys.iter().any(|(f, _)| f.ends_with("$**")) {
        2
    } else if has(Key::Sphere) {
        3
    } else if collation {
        4
    } else if expire_after.is_some() {
        5
    } else {
        6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &[(&str, Key)] = &[
        ("kind", Key::Asc),
        ("title", Key::Text),
        ("body", Key::Text),
    ];

    #[test]
    fn text_keys_are_listed_as_one_fts_pair() {
        assert_eq!(
            keys_document(TEXT),
            doc! { "kind": 1, "title": "text", "body": "text" }
        );
        assert_eq!(
            listed_keys_document(TEXT),
            doc! { "kind": 1, "_fts": "text", "_ftsx": 1 }
        );
        let geo = [("loc", Key::Sphere), ("h", Key::Hashed)];
        assert_eq!(
            listed_keys_document(&geo),
            doc! { "loc": "2dsphere", "h": "hashed" }
        );
    }

    #[test]
    fn unlisted_text_fields_weigh_one_and_languages_default() {
        let text = TextOptions {
            weights: &[("title", 10)],
            ..TextOptions::NONE
        };
        let existing = doc! {
            "weights": { "body": 1, "title": 10 }, "default_language": "english",
            "language_override": "language", "textIndexVersion": 3,
        };
        assert!(differences(TEXT, None, &text, None, &existing).is_empty());
        let other = TextOptions {
            weights: &[("title", 5)],
            default_language: Some("french"),
            language_override: None,
        };
        assert_eq!(
            differences(TEXT, None, &other, None, &existing),
            [
                "weights: declared { \"title\": 5, \"body\": 1 }, existing { \"body\": 1, \"title\": 10 }",
                "default_language: declared \"french\", existing \"english\"",
            ]
        );
    }

    #[test]
    fn ttl_and_collation_are_compared() {
        let keys = [("at", Key::Asc)];
        let existing = doc! { "expireAfterSeconds": 60_i64 };
        assert!(differences(&keys, Some(60), &TextOptions::NONE, None, &existing).is_empty());
        assert_eq!(
            differences(&keys, Some(30), &TextOptions::NONE, None, &existing),
            ["expireAfterSeconds: declared 30, existing 60"]
        );
        assert_eq!(
            differences(&keys, None, &TextOptions::NONE, None, &existing),
            ["expireAfterSeconds: declared none, existing 60"]
        );
        let en2 = Collation {
            locale: "en",
            strength: Some(2),
            case_level: None,
            case_first: None,
            numeric_ordering: None,
        };
        // MongoDB lists every option of the locale; undeclared ones are not compared.
        let full = doc! { "collation": { "locale": "en", "caseLevel": false, "strength": 2, "version": "57.1" } };
        assert!(differences(&keys, None, &TextOptions::NONE, Some(&en2), &full).is_empty());
        let strength3 = doc! { "collation": { "locale": "en", "strength": 3 } };
        assert_eq!(
            differences(&keys, None, &TextOptions::NONE, Some(&en2), &strength3),
            ["collation: declared { \"locale\": \"en\", \"strength\": 2 }, existing { \"locale\": \"en\", \"strength\": 3 }"]
        );
        assert_eq!(
            differences(&keys, None, &TextOptions::NONE, None, &strength3),
            ["collation: declared none, existing { \"locale\": \"en\", \"strength\": 3 }"]
        );
    }

    #[test]
    fn kinds_a_server_may_lack_are_created_first() {
        let plain = risk(&[("a", Key::Asc)], None, false);
        assert!(risk(TEXT, None, false) < risk(&[("h", Key::Hashed)], None, false));
        assert!(risk(&[("$**", Key::Asc)], None, false) < plain);
        assert!(risk(&[("a", Key::Asc)], Some(5), false) < plain);
        assert!(risk(&[("a", Key::Asc)], None, true) < plain);
    }
}
