//! Random edits of a stored document, made on its raw bytes: what the
//! loaders meet when other code wrote the document. A value replaced by
//! one of another type, an integer stored at another width or as a double
//! (or as a string), a key removed or added, an array element removed or
//! added; at a random depth.

use crate::bson_release;
use mongodb::bson::raw::{RawArray, RawArrayBuf, RawBson, RawBsonRef, RawDocument};
use mongodb::bson::RawDocumentBuf;

use super::Rng;

impl Rng {
    /// `doc` with one random edit, at its top level or inside one of its
    /// documents or arrays.
    pub(crate) fn edit(&mut self, doc: &RawDocument) -> RawDocumentBuf {
        let elements: Vec<(&str, RawBsonRef<'_>)> = doc
            .iter()
            .map(|e| e.map(|(k, v)| (bson_release::key_str(k), v)).unwrap())
            .collect();
        let append = elements.is_empty() || self.chance(25);
        let at = self.below(elements.len().max(1));
        let mut out = RawDocumentBuf::new();
        for (i, (key, value)) in elements.iter().enumerate() {
            if append || i != at {
                bson_release::append_ref(&mut out, key, *value);
            } else if let Some(edited) = self.edited(*value) {
                bson_release::append(&mut out, key, edited);
            }
        }
        if append {
            let key = self.key().replace('\0', "");
            let value = self.raw_value();
            bson_release::append(&mut out, &key, value);
        }
        out
    }

    /// An array with one random edit (its elements are renumbered).
    fn edit_array(&mut self, array: &RawArray) -> RawArrayBuf {
        let items: Vec<RawBsonRef<'_>> = array.into_iter().map(Result::unwrap).collect();
        let mut out = RawArrayBuf::new();
        let append = items.is_empty() || self.chance(30);
        let at = self.below(items.len().max(1));
        for (i, item) in items.iter().enumerate() {
            if append || i != at {
                out.push(bson_release::to_raw_bson(*item));
            } else if let Some(edited) = self.edited(*item) {
                out.push(edited);
            }
        }
        if append {
            out.push(self.raw_value());
        }
        out
    }

    /// The element at the edit: edited inside, retyped, or (`None`) removed.
    fn edited(&mut self, value: RawBsonRef<'_>) -> Option<RawBson> {
        match value {
            RawBsonRef::Document(inner) if self.chance(60) => {
                Some(RawBson::Document(self.edit(inner)))
            }
            RawBsonRef::Array(inner) if self.chance(70) => {
                Some(RawBson::Array(self.edit_array(inner)))
            }
            _ if self.chance(30) => None,
            _ => Some(self.retyped(value)),
        }
    }

    /// `value` as another type: the same number at another width, as a
    /// double or as a string; or anything else.
    fn retyped(&mut self, value: RawBsonRef<'_>) -> RawBson {
        let n = match value {
            RawBsonRef::Int32(n) => Some(i64::from(n)),
            RawBsonRef::Int64(n) => Some(n),
            RawBsonRef::Double(d) => Some(d as i64),
            _ => None,
        };
        match (n, self.below(5)) {
            (Some(n), 0) => RawBson::Int32(n as i32),
            (Some(n), 1) => RawBson::Int64(n),
            (Some(n), 2) => RawBson::Double(n as f64),
            (Some(n), 3) => RawBson::String(n.to_string()),
            _ => self.raw_value(),
        }
    }

    /// A random value (nested one level) that can be stored.
    pub(crate) fn raw_value(&mut self) -> RawBson {
        loop {
            // A key or a regex with a NUL cannot be stored: draw again.
            let holder = mongodb::bson::doc! { "v": self.bson(1, 10) };
            if let Ok(raw) = crate::bson_release::testing::to_raw_document_buf(&holder) {
                return bson_release::to_raw_bson(raw.get("v").unwrap().unwrap());
            }
        }
    }
}
