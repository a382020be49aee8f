//! Short keys, strings and array indexes written as one fixed-size chunk.
//!
//! Most keys and many strings of a document are a few bytes long. Copied
//! as slices of their own length, each costs calls to `memchr` and
//! `memcpy` that cost more than the bytes; here a key or string of at most
//! 16 bytes is assembled in a 24-byte chunk by two overlapping word
//! copies, the chunk appended whole (a fixed-size copy the compiler
//! inlines) and the vector cut back to the element's length. Same bytes,
//! no unsafe code; the writer keeps at least a chunk of spare capacity at
//! the end so the cut-back chunk never makes the vector grow.

/// The size of a chunk.
pub(super) const CHUNK: usize = 24;

/// The longest byte string written through a chunk.
pub(super) const SHORT: usize = 16;

/// A key or string of at most [`SHORT`] bytes: its two ends as words (8
/// bytes each from 8 bytes up, 4 from 4, one from 1), which together cover
/// every byte.
#[derive(Clone, Copy)]
pub(super) struct Short {
    len: usize,
    head: u64,
    tail: u64,
}

/// Reads `bytes` (at most [`SHORT`]) as its two ends.
#[inline]
pub(super) fn read(bytes: &[u8]) -> Short {
    let len = bytes.len();
    debug_assert!(len <= SHORT);
    let (head, tail) = match len {
        0 => (0, 0),
        1..=3 => {
            // Bytes 0, len / 2 and len - 1 are every byte of 1 to 3.
            let word = u64::from(bytes[0])
                | u64::from(bytes[len / 2]) << 8
                | u64::from(bytes[len - 1]) << 16;
            (word, 0)
        }
        4..=7 => (
            u64::from(u32::from_le_bytes(word4(bytes, 0))),
            u64::from(u32::from_le_bytes(word4(bytes, len - 4))),
        ),
        _ => (
            u64::from_le_bytes(word8(bytes, 0)),
            u64::from_le_bytes(word8(bytes, len - 8)),
        ),
    };
    Short { len, head, tail }
}

impl Short {
    /// Its length.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Whether one of its bytes is NUL (which a key cannot hold).
    #[inline]
    pub(super) fn has_nul(&self) -> bool {
        match self.len {
            0 => false,
            // The three bytes of the word, one of them possibly twice.
            1..=3 => self.head & 0xFF == 0 || self.head & 0xFF00 == 0 || self.head & 0xFF_0000 == 0,
            4..=7 => {
                zero_byte(self.head | 0xFFFF_FFFF_0000_0000)
                    || zero_byte(self.tail | 0xFFFF_FFFF_0000_0000)
            }
            _ => zero_byte(self.head) || zero_byte(self.tail),
        }
    }

    /// Writes its bytes into `chunk` from `at` (`at + len <= CHUNK`).
    #[inline]
    pub(super) fn put(&self, chunk: &mut [u8; CHUNK], at: usize) {
        let len = self.len;
        match len {
            0 => {}
            1..=3 => {
                chunk[at] = self.head as u8;
                chunk[at + len / 2] = (self.head >> 8) as u8;
                chunk[at + len - 1] = (self.head >> 16) as u8;
            }
            4..=7 => {
                chunk[at..at + 4].copy_from_slice(&(self.head as u32).to_le_bytes());
                chunk[at + len - 4..at + len].copy_from_slice(&(self.tail as u32).to_le_bytes());
            }
            _ => {
                chunk[at..at + 8].copy_from_slice(&self.head.to_le_bytes());
                chunk[at + len - 8..at + len].copy_from_slice(&self.tail.to_le_bytes());
            }
        }
    }
}

/// Whether a byte of `word` is zero (exact: no false positives).
#[inline]
fn zero_byte(word: u64) -> bool {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    word.wrapping_sub(LOW) & !word & HIGH != 0
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

/// Appends the first `len` bytes of `chunk` to `bytes` (a fixed-size copy,
/// then a cut back to `len`).
#[inline]
pub(super) fn append(bytes: &mut Vec<u8>, chunk: &[u8; CHUNK], len: usize) {
    let at = bytes.len();
    bytes.extend_from_slice(chunk);
    bytes.truncate(at + len);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte strings up to 16 bytes: without NUL, with one NUL at each
    /// position, and mixes over an alphabet with NUL; at every offset of a
    /// chunk they fit, written as themselves, NUL told.
    #[test]
    fn short_strings_are_written_and_checked_exactly() {
        let alphabet = [b'a', 0, 0xFF, b'7'];
        for len in 0..=SHORT {
            let plain: Vec<u8> = (0..len).map(|i| b'a' + i as u8).collect();
            let mut cases = vec![plain.clone()];
            for at in 0..len {
                let mut one = plain.clone();
                one[at] = 0;
                cases.push(one);
            }
            for seed in 0..64usize {
                cases.push(
                    (0..len)
                        .map(|i| alphabet[((seed >> (i % 6)) ^ (i * 7)) % alphabet.len()])
                        .collect(),
                );
            }
            for bytes in cases {
                let short = read(&bytes);
                assert_eq!(short.has_nul(), bytes.contains(&0), "{bytes:?}");
                for at in 0..=CHUNK - len {
                    let mut chunk = [0xAA; CHUNK];
                    short.put(&mut chunk, at);
                    assert_eq!(&chunk[at..at + len], &bytes[..], "{bytes:?} at {at}");
                    assert!(chunk[..at].iter().all(|&b| b == 0xAA));
                    assert!(chunk[at + len..].iter().all(|&b| b == 0xAA));
                }
            }
        }
    }

    #[test]
    fn append_adds_exactly_len_bytes() {
        let mut bytes = vec![1, 2, 3];
        let mut chunk = [9; CHUNK];
        chunk[0] = 4;
        append(&mut bytes, &chunk, 2);
        assert_eq!(bytes, [1, 2, 3, 4, 9]);
        append(&mut bytes, &chunk, 0);
        assert_eq!(bytes, [1, 2, 3, 4, 9]);
    }
}
