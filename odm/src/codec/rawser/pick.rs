//! Some top-level fields of a value written alone: each picked field as
//! the element it serializes to, the others passed over unwritten. For a
//! check of a few fields against an earlier serialization (a save's
//! `timestamps` stamp, `plan::timestamps`) at the cost of those fields,
//! not of the document.

use std::ops::Range;

use serde::ser::{self, Serialize};

use super::compound::Struct;
use super::top::{written, EachField, Top};
use super::{Result, Writer};

/// The picked fields of a value, as written.
#[derive(Debug)]
pub(crate) struct Picked {
    bytes: Vec<u8>,
    /// Per field written: its index in the keys asked for, its element.
    found: Vec<(usize, Range<usize>)>,
}

impl Picked {
    /// The element (type, key and value) the value wrote for the `i`-th
    /// key asked for; `None` when it wrote none (a field serde skips).
    pub fn element(&self, i: usize) -> Option<&[u8]> {
        let (_, range) = self.found.iter().find(|(k, _)| *k == i)?;
        Some(&self.bytes[range.clone()])
    }
}

/// The fields `keys` (BSON names) of `value`, a struct, each written as
/// `rawser` writes it whole. `None` when `rawser` does not write the value
/// (`bson` must; see the module docs of `rawser`).
pub(crate) fn pick<T: Serialize + ?Sized>(value: &T, keys: &[&str]) -> Option<Picked> {
    let mut top = Top {
        w: Writer {
            bytes: Vec::with_capacity(64),
            type_index: 0,
        },
        fields: Picking {
            keys,
            found: Vec::with_capacity(keys.len()),
        },
    };
    value.serialize(&mut top).ok()?;
    Some(Picked {
        bytes: top.w.bytes,
        found: top.fields.found,
    })
}

/// The keys asked for, and those written so far.
struct Picking<'k> {
    keys: &'k [&'k str],
    found: Vec<(usize, Range<usize>)>,
}

impl EachField for Picking<'_> {
    fn field<T: Serialize + ?Sized>(
        &mut self,
        inner: &mut Struct<'_>,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        let Some(i) = self.keys.iter().position(|k| *k == key) else {
            return Ok(());
        };
        let start = written(inner)?;
        ser::SerializeStruct::serialize_field(inner, key, value)?;
        let end = written(inner)?;
        if end > start {
            self.found.push((i, start..end));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use mongodb::bson::{rawdoc, DateTime};
    use serde::Serialize;

    use super::pick;
    use crate::codec::scan::only_element;

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Stamped {
        title: String,
        tags: Vec<String>,
        updated_at: Option<DateTime>,
        #[serde(skip_serializing_if = "Option::is_none")]
        created_at: Option<DateTime>,
    }

    #[test]
    fn only_the_picked_fields_are_written_each_as_its_element() {
        let at = DateTime::from_millis(42);
        let value = Stamped {
            title: "t".into(),
            tags: vec!["a".into()],
            updated_at: Some(at),
            created_at: None,
        };
        let picked = pick(&value, &["createdAt", "updatedAt", "nope"]).unwrap();
        assert_eq!(
            picked.element(1).unwrap(),
            only_element(&rawdoc! { "updatedAt": at })
        );
        // Skipped by serde, or no such field: no element.
        assert_eq!(picked.element(0), None);
        assert_eq!(picked.element(2), None);
        let none = Stamped {
            updated_at: None,
            ..value
        };
        let picked = pick(&none, &["updatedAt"]).unwrap();
        assert_eq!(
            picked.element(0).unwrap(),
            only_element(&rawdoc! { "updatedAt": null })
        );
        // Not a struct: not picked.
        assert!(pick(&vec![1], &["a"]).is_none());
    }
}
