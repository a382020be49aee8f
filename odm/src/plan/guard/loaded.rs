//! The stored document as this copy loaded it, read at the paths of many
//! changes. The guards of one save read it once per change, and one save
//! may change many elements of one large array (every comment's `likes`):
//! read from the top each time, that costs the array's length per change.
//! Here a walk through an array goes on from where it stopped when the next
//! index is not before it, and a large document visited again is indexed
//! once, so the reads of one save in document order cost about one walk of
//! what they go through.

use std::collections::HashMap;

use mongodb::bson::raw::RawDocument;
use mongodb::bson::spec::ElementType;

use crate::codec::scan::{Elem, Walk};
use crate::error::Error;
use crate::plan::diff::field;

/// A document larger than this (in bytes) is indexed by key on its second
/// visit; a smaller one is scanned.
const INDEX_BYTES: usize = 1024;

/// What a read left of one array or document, by its path.
enum Seen<'a> {
    /// A walk of an array, about to return element `next`.
    Array { walk: Walk<'a>, next: usize },
    /// A large document, read once.
    Visited,
    /// A large document read twice or more: its elements by key (the
    /// first of each key, as a lookup finds it).
    Indexed(HashMap<&'a [u8], Elem<'a>>),
}

/// The loaded document, read by path.
pub(crate) struct Loaded<'a> {
    root: Elem<'a>,
    seen: HashMap<String, Seen<'a>>,
}

impl<'a> Loaded<'a> {
    pub fn new(doc: &'a RawDocument) -> Loaded<'a> {
        Loaded {
            root: Elem {
                tag: ElementType::EmbeddedDocument as u8,
                key: b"",
                value: doc.as_bytes(),
            },
            seen: HashMap::new(),
        }
    }

    /// The document itself (its path is empty).
    pub fn root(&self) -> Elem<'a> {
        self.root
    }

    /// The value at a dotted path (array elements by index), as
    /// [`lookup`](crate::plan::diff::lookup) finds it.
    pub fn get(&mut self, path: &str) -> Result<Option<Elem<'a>>, Error> {
        let mut at = self.root;
        let mut end = 0;
        for part in path.split('.') {
            let holder = &path[..end.max(1) - 1];
            match self.child(holder, at, part)? {
                Some(found) => at = found,
                None => return Ok(None),
            }
            end += part.len() + 1;
        }
        Ok(Some(at))
    }

    /// The element `part` names in `holder` (a document or an array, at
    /// path `holder_path`); `None` when it has none, or is neither.
    pub fn child(
        &mut self,
        holder_path: &str,
        holder: Elem<'a>,
        part: &str,
    ) -> Result<Option<Elem<'a>>, Error> {
        if holder.is_array() {
            let Ok(i) = part.parse::<usize>() else {
                return Ok(None);
            };
            self.element(holder_path, holder, i)
        } else if holder.is_document() {
            self.field(holder_path, holder, part.as_bytes())
        } else {
            Ok(None)
        }
    }

    fn element(
        &mut self,
        path: &str,
        array: Elem<'a>,
        i: usize,
    ) -> Result<Option<Elem<'a>>, Error> {
        if !self.seen.contains_key(path) {
            self.seen.insert(path.to_string(), Seen::Visited);
        }
        let Some(seen) = self.seen.get_mut(path) else {
            return Ok(None);
        };
        let (walk, next) = match seen {
            Seen::Array { walk, next } if *next <= i => (walk, next),
            _ => {
                *seen = Seen::Array {
                    walk: Walk::new(array.value)?,
                    next: 0,
                };
                match seen {
                    Seen::Array { walk, next } => (walk, next),
                    _ => unreachable!("just set"),
                }
            }
        };
        while *next < i {
            if walk.next_elem()?.is_none() {
                return Ok(None);
            }
            *next += 1;
        }
        let found = walk.next_elem()?;
        *next += usize::from(found.is_some());
        Ok(found)
    }

    fn field(&mut self, path: &str, doc: Elem<'a>, key: &[u8]) -> Result<Option<Elem<'a>>, Error> {
        if doc.value.len() <= INDEX_BYTES {
            return field(doc.value, key);
        }
        match self.seen.get_mut(path) {
            Some(Seen::Indexed(index)) => return Ok(index.get(key).copied()),
            Some(seen) => {
                let mut index = HashMap::new();
                let mut walk = Walk::new(doc.value)?;
                while let Some(e) = walk.next_elem()? {
                    index.entry(e.key).or_insert(e);
                }
                let found = index.get(key).copied();
                *seen = Seen::Indexed(index);
                return Ok(found);
            }
            None => {
                self.seen.insert(path.to_string(), Seen::Visited);
            }
        }
        field(doc.value, key)
    }
}

#[cfg(test)]
mod tests {
    use mongodb::bson::doc;

    use super::Loaded;
    use crate::plan::diff::lookup;

    #[test]
    fn reads_as_lookup_reads_in_any_order() {
        let big: Vec<String> = (0..300).map(|i| format!("v{i}")).collect();
        let mut wide = mongodb::bson::Document::new();
        for i in 0..100 {
            wide.insert(format!("k{i}"), i);
        }
        let doc = mongodb::bson::RawDocumentBuf::try_from(&doc! {
            "a": [{ "x": 1, "l": [1, 2, [3, 4]] }, { "x": 2 }],
            "big": big.clone(),
            "wide": wide,
            "s": "t",
        })
        .unwrap();
        let paths = [
            "a.0.x",
            "a.1.x",
            "a.0.l.2.1",
            "a.0.l.0",
            "big.5",
            "big.299",
            "big.3",
            "big.300",
            "big.x",
            "wide.k7",
            "wide.k99",
            "wide.k0",
            "wide.nope",
            "s",
            "s.x",
            "nope",
            "a.2",
            "a.1.x.y",
            "a.0",
        ];
        let mut loaded = Loaded::new(&doc);
        for round in 0..2 {
            for path in paths {
                let want = lookup(doc.as_bytes(), path).unwrap().map(|(e, _)| e);
                let got = loaded.get(path).unwrap();
                assert_eq!(
                    got.map(|e| (e.tag, e.value)),
                    want.map(|e| (e.tag, e.value)),
                    "{path} (round {round})"
                );
            }
        }
        assert_eq!(
            loaded.get("big.299").unwrap().unwrap().decode().unwrap(),
            big[299].as_str().into()
        );
    }
}
