//! The continuation token of a page: the last item's key values and a
//! fingerprint of the query, as BSON in URL-safe base64 (no padding).
//!
//! The token is opaque to the caller but not secret: it holds the sort
//! key values (and `_id`) of the last item it follows.

use mongodb::bson::{Bson, Document};
use serde::{Deserialize, Serialize};

use super::keyset::Key;

/// What a token holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Stored {
    /// The fingerprint of the query it continues.
    f: i64,
    /// The key values of the last item, one per key of the full sort.
    k: Vec<Bson>,
}

/// Why a token was refused.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Bad {
    /// Not a token odm made.
    Malformed,
    /// A token of another query.
    Foreign,
}

/// The fingerprint of a query: its namespace, filter and full sort
/// (FNV-1a over their BSON bytes; stable across processes and releases).
pub(crate) fn fingerprint(namespace: &str, filter: &Document, keys: &[Key]) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for byte in bytes.iter().chain(&[0xff]) {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(namespace.as_bytes());
    match crate::bson_release::to_raw_document_buf(filter) {
        Ok(raw) => feed(raw.as_bytes()),
        Err(_) => feed(filter.to_string().as_bytes()),
    }
    for (path, direction) in keys {
        feed(path.as_bytes());
        feed(&direction.to_le_bytes());
    }
    hash as i64
}

/// The token for `values` under the query of `fingerprint`.
pub(crate) fn encode(fingerprint: i64, values: Vec<Bson>) -> String {
    let stored = Stored {
        f: fingerprint,
        k: values,
    };
    match crate::bson_release::to_raw_document_buf(&stored) {
        Ok(raw) => base64url(raw.as_bytes()),
        // Key values read from a stored document always serialize.
        Err(_) => String::new(),
    }
}

/// The key values in `token`, when it is one of the query of
/// `fingerprint` with `keys` key values.
pub(crate) fn decode(token: &str, fingerprint: i64, keys: usize) -> Result<Vec<Bson>, Bad> {
    let bytes = unbase64url(token).ok_or(Bad::Malformed)?;
    let stored: Stored = crate::bson_release::from_slice(&bytes).map_err(|_| Bad::Malformed)?;
    if stored.f != fingerprint {
        return Err(Bad::Foreign);
    }
    if stored.k.len() != keys {
        return Err(Bad::Malformed);
    }
    Ok(stored.k)
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// URL-safe base64 without padding.
fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// The bytes of [`base64url`] text; `None` for anything else.
fn unbase64url(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| ALPHABET.iter().position(|a| *a == c).map(|d| d as u32);
    let text = text.as_bytes();
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for chunk in text.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= digit(*c)? << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::doc;

    fn keys() -> Vec<Key> {
        vec![("at".into(), -1), ("_id".into(), -1)]
    }

    #[test]
    fn base64url_round_trips_every_length() {
        let bytes: Vec<u8> = (0..=255).collect();
        for n in 0..40 {
            let text = base64url(&bytes[..n]);
            assert!(!text.contains(['+', '/', '=']), "{text}");
            assert_eq!(unbase64url(&text).as_deref(), Some(&bytes[..n]));
        }
        assert_eq!(base64url(b"hello"), "aGVsbG8");
        assert_eq!(unbase64url("a"), None);
        assert_eq!(unbase64url("a b="), None);
    }

    #[test]
    fn a_token_continues_only_its_own_query() {
        let f = fingerprint("app.users", &doc! { "s": "A" }, &keys());
        let token = encode(f, vec![Bson::Int64(10), Bson::Int32(3)]);
        assert_eq!(
            decode(&token, f, 2),
            Ok(vec![Bson::Int64(10), Bson::Int32(3)])
        );
        let other_filter = fingerprint("app.users", &doc! { "s": "B" }, &keys());
        let other_ns = fingerprint("app.people", &doc! { "s": "A" }, &keys());
        let other_sort = fingerprint("app.users", &doc! { "s": "A" }, &keys()[1..]);
        for other in [other_filter, other_ns, other_sort] {
            assert_ne!(other, f);
            assert_eq!(decode(&token, other, 2), Err(Bad::Foreign));
        }
    }

    #[test]
    fn a_token_odm_did_not_make_is_malformed() {
        let f = fingerprint("app.users", &doc! {}, &keys());
        assert_eq!(decode("not a token", f, 2), Err(Bad::Malformed));
        assert_eq!(decode("", f, 2), Err(Bad::Malformed));
        assert_eq!(
            decode(&base64url(b"\x05\0\0\0\0"), f, 2),
            Err(Bad::Malformed)
        );
        let token = encode(f, vec![Bson::Int32(3)]);
        assert_eq!(decode(&token, f, 2), Err(Bad::Malformed));
        let mut cut = encode(f, vec![Bson::Null, Bson::Int32(3)]);
        cut.truncate(cut.len() - 3);
        assert_eq!(decode(&cut, f, 2), Err(Bad::Malformed));
    }
}
