//! The one seeded random generator of the tests and benchmarks: splitmix64,
//! small, fast and the same sequence on every machine, so a seed replays a
//! random history (or rebuilds a benchmark's documents) exactly.
//!
//! `Rng::new(seed)` yields `splitmix64(seed)`, `splitmix64(seed + G)`,
//! `splitmix64(seed + 2G)`, ... (`G` the golden-ratio increment), the
//! sequence of the reference splitmix64.

use mongodb::bson::oid::ObjectId;

/// The golden-ratio increment of splitmix64.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// splitmix64's output for the state `x`: `x + G`, mixed. Also a good
/// hash of a seed into another (a history's seed from a run's).
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(GOLDEN);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A seeded splitmix64 generator.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose sequence `seed` fixes.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let out = splitmix64(self.0);
        self.0 = self.0.wrapping_add(GOLDEN);
        out
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// `true` with a chance of `percent` in 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (not empty).
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    /// An index into `weights`, drawn with those weights.
    pub fn weighted(&mut self, weights: &[usize]) -> usize {
        let total: usize = weights.iter().sum();
        let mut r = self.below(total);
        for (i, w) in weights.iter().enumerate() {
            if r < *w {
                return i;
            }
            r -= w;
        }
        weights.len() - 1
    }

    /// An ObjectId of random bytes (the same for a seed, unlike
    /// `ObjectId::new()`).
    pub fn object_id(&mut self) -> ObjectId {
        let mut bytes = [0u8; 12];
        bytes[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        bytes[8..].copy_from_slice(&self.next_u64().to_le_bytes()[..4]);
        ObjectId::from_bytes(bytes)
    }

    /// `len` random lowercase letters and spaces.
    pub fn letters(&mut self, len: usize) -> String {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz ";
        (0..len)
            .map(|_| ALPHABET[self.below(ALPHABET.len())] as char)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_the_reference_splitmix64() {
        // The first outputs of splitmix64 seeded with 1234567 (the values
        // its reference implementation prints).
        let mut rng = Rng::new(1234567);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423
            ]
        );
    }

    #[test]
    fn weighted_draws_follow_their_weights() {
        let mut rng = Rng::new(7);
        let mut counts = [0usize; 3];
        for _ in 0..10_000 {
            counts[rng.weighted(&[1, 0, 3])] += 1;
        }
        assert_eq!(counts[1], 0, "a zero weight is never drawn");
        assert!((2_000..3_000).contains(&counts[0]), "{counts:?}");
    }
}
