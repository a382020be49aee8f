//! Values compared as MongoDB compares them when it matches a value
//! (`$pullAll`, `$in`, `$eq`): numbers by value across int32, int64 and
//! double (`1 == 1.0`, `0.0 == -0.0`), arrays element by element, other
//! values by type and bytes.
//!
//! A removal inferred from bytes is applied by the server by value, so the
//! diff needs this equality to know what a `$pullAll` will really take.

use std::collections::HashMap;

use crate::codec::scan::{elements, Elem};

/// How a value takes part in MongoDB's equality.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Class {
    /// Equal values have equal keys, unequal values different ones.
    Key(Vec<u8>),
    /// A document, or an array holding one: MongoDB compares documents
    /// field by field in order (the test server ignores the order), so no
    /// removal by value may depend on one.
    Document,
    /// NaN, or an array holding one.
    NaN,
    /// Decimal128, symbol, code, undefined and the like: equality not
    /// modelled here.
    Other,
}

/// The class of one value.
pub(crate) fn class(e: &Elem<'_>) -> Class {
    let mut key = Vec::with_capacity(e.value.len() + 1);
    match write_key(e, &mut key) {
        Ok(()) => Class::Key(key),
        Err(class) => class,
    }
}

fn write_key(e: &Elem<'_>, out: &mut Vec<u8>) -> Result<(), Class> {
    match e.tag {
        0x10 => number(i64::from(i32::from_le_bytes(four(e.value))), out),
        0x12 => number(i64::from_le_bytes(eight(e.value)), out),
        0x01 => {
            let d = f64::from_le_bytes(eight(e.value));
            if d.is_nan() {
                return Err(Class::NaN);
            }
            // Integral doubles inside i64's range equal that integer.
            const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
            if d.fract() == 0.0 && (-LIMIT..LIMIT).contains(&d) {
                number(d as i64, out);
            } else {
                out.push(b'f');
                out.extend_from_slice(&d.to_bits().to_le_bytes());
            }
        }
        0x04 => {
            out.push(0x04);
            let items = elements(e.value).map_err(|_| Class::Other)?;
            for item in &items {
                let start = out.len();
                out.extend_from_slice(&[0; 4]);
                write_key(item, out)?;
                let len = (out.len() - start - 4) as u32;
                out[start..start + 4].copy_from_slice(&len.to_le_bytes());
            }
        }
        0x03 => return Err(Class::Document),
        // string, binary, ObjectId, bool, date, null, regex, timestamp,
        // min and max key: equal exactly when type and bytes are.
        0x02 | 0x05 | 0x07 | 0x08 | 0x09 | 0x0A | 0x0B | 0x11 | 0x7F | 0xFF => {
            out.push(e.tag);
            out.extend_from_slice(e.value);
        }
        _ => return Err(Class::Other),
    }
    Ok(())
}

fn number(n: i64, out: &mut Vec<u8>) {
    out.push(b'n');
    out.extend_from_slice(&n.to_le_bytes());
}

fn four(b: &[u8]) -> [u8; 4] {
    b.try_into().unwrap_or_default()
}

fn eight(b: &[u8]) -> [u8; 8] {
    b.try_into().unwrap_or_default()
}

/// Distinct values by MongoDB's equality: each key with the first value
/// that has it and how many values have it, in order of first occurrence.
#[derive(Default)]
pub(crate) struct Tally<'a> {
    index: HashMap<Vec<u8>, usize>,
    pub entries: Vec<(Elem<'a>, i64)>,
}

impl<'a> Tally<'a> {
    pub fn add(&mut self, key: Vec<u8>, value: Elem<'a>) {
        match self.index.get(&key) {
            Some(&i) => self.entries[i].1 += 1,
            None => {
                self.index.insert(key, self.entries.len());
                self.entries.push((value, 1));
            }
        }
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.index.contains_key(key)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
}
