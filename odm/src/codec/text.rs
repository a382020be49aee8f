//! What reading stored bytes does to every key and string: check text is
//! UTF-8, compare keys (and small values) byte for byte. Kept cheap for
//! what most documents hold, short keys and ASCII text: a load and a
//! save's diff do it for every element.
//!
//! With `same_type`, one of the two modules of odm with unsafe code: the
//! one block says why it is sound.

#![allow(unsafe_code)]

/// `bytes` as text when they are UTF-8: exactly
/// `std::str::from_utf8(bytes).ok()`. ASCII, the common case, is told by
/// one word-at-a-time scan instead of the general decoder, which costs
/// several times more on the short strings of a small document.
#[inline]
pub(crate) fn utf8(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: every ASCII byte sequence is valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes).ok()
    }
}

/// `a == b`, compared inline for byte strings up to 16 bytes (keys), by
/// at most two overlapping words, instead of a call to `memcmp`.
#[inline]
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        // Bytes 0, n / 2 and n - 1 are every byte of 1 to 3.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

#[inline]
fn word4(s: &[u8], at: usize) -> [u8; 4] {
    let mut w = [0; 4];
    w.copy_from_slice(&s[at..at + 4]);
    w
}

#[inline]
fn word8(s: &[u8], at: usize) -> [u8; 8] {
    let mut w = [0; 8];
    w.copy_from_slice(&s[at..at + 8]);
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of byte strings up to 20 bytes long that differ in at
    /// most one byte, over a small alphabet: `same` is `==`.
    #[test]
    fn same_is_equality() {
        let alphabet = [b'a', b'b', 0, 0xFF];
        for n in 0..=20usize {
            for m in [n, n + 1, n.saturating_sub(1)] {
                let a: Vec<u8> = (0..n).map(|i| alphabet[i % 3]).collect();
                let mut b: Vec<u8> = (0..m).map(|i| alphabet[i % 3]).collect();
                assert_eq!(same(&a, &b), a == b, "{a:?} {b:?}");
                for at in 0..m {
                    for &x in &alphabet {
                        let old = b[at];
                        b[at] = x;
                        assert_eq!(same(&a, &b), a == b, "{a:?} {b:?}");
                        b[at] = old;
                    }
                }
            }
        }
    }

    #[test]
    fn utf8_is_from_utf8() {
        let cases: [&[u8]; 9] = [
            b"",
            b"plain ascii text, longer than two words",
            b"short",
            "caf\u{e9}".as_bytes(),
            "\u{1F600} and more".as_bytes(),
            &[0x80],
            &[b'a', 0xC3],
            &[0xED, 0xA0, 0x80],
            b"nul\0inside",
        ];
        for bytes in cases {
            assert_eq!(utf8(bytes), std::str::from_utf8(bytes).ok(), "{bytes:?}");
        }
    }
}
