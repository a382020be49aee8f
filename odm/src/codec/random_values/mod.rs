//! Random values for the equivalence tests of the fast BSON paths
//! (`rawser/equivalence_tests.rs`, `rawde/equivalence_tests.rs`): a small
//! seeded generator, random `Bson` trees of every element type, and random
//! edits of stored documents.
//!
//! Random values lean on the edges (integer limits of every width, NaN,
//! -0.0, infinities, subnormals, empty and non-ASCII strings, keys that
//! `bson` gives a meaning to) without crowding out ordinary values, so a
//! run both covers the fast paths and probes where they could disagree.

use mongodb::bson::spec::BinarySubtype;
use mongodb::bson::Timestamp;
use mongodb::bson::{Binary, Bson, DateTime, Decimal128, Document, JavaScriptCodeWithScope};
use odm_testing::random;

mod edit;
mod types;

pub(crate) use types::{any_root, AnyRoot, External, Node, Root};

/// The workspace's one seeded generator (`odm_testing::random`, splitmix64),
/// with the value makers below.
pub(crate) struct Rng(random::Rng);

impl std::ops::Deref for Rng {
    type Target = random::Rng;

    fn deref(&self) -> &random::Rng {
        &self.0
    }
}

impl std::ops::DerefMut for Rng {
    fn deref_mut(&mut self) -> &mut random::Rng {
        &mut self.0
    }
}

/// Integer bit patterns at the edges of every width, from `u8` to `u64`.
const EDGES: &[u64] = &[
    0,
    1,
    2,
    0x7F,
    0x80,
    0xFF,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0x1_0000_0000,
    0x7FFF_FFFF_FFFF_FFFF,
    0x8000_0000_0000_0000,
    u64::MAX,
    u64::MAX - 1,
];

/// Characters strings and keys are made of: ASCII, 2-, 3- and 4-byte UTF-8,
/// the largest scalar value, and the characters BSON treats specially.
const CHARS: &[char] = &[
    'a',
    'b',
    'z',
    'A',
    '0',
    '9',
    ' ',
    '.',
    '$',
    '_',
    'é',
    'ß',
    'ж',
    '日',
    '本',
    '✓',
    '\u{FFFD}',
    '😀',
    '\u{10FFFF}',
    '\u{7F}',
];

/// Keys with a meaning to `bson` or to odm, tried beside random ones.
const SPECIAL_KEYS: &[&str] = &[
    "_id",
    "__v",
    "__fence",
    "__refs",
    "$oid",
    "$date",
    "$numberLong",
    "$numberDecimal",
    "$binary",
    "t",
    "c",
    "a",
    "Unit",
    "Newtype",
    "Tuple",
    "Struct",
    "0",
    "",
];

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(random::Rng::new(seed))
    }

    /// An integer's bits: an edge of some width (negated half the time, so
    /// `-1`, `-128`, `i64::MIN`... come out after a cast), a small number,
    /// or any 64 bits. Cast to the width wanted.
    pub(crate) fn bits(&mut self) -> u64 {
        match self.below(4) {
            0 => {
                let edge = self.pick(EDGES);
                if self.chance(50) {
                    edge.wrapping_neg()
                } else {
                    edge
                }
            }
            1 => (self.below(201) as u64).wrapping_sub(100),
            _ => self.next_u64() >> self.below(64),
        }
    }

    /// A `u64` that fits an `i64` but in `percent` out of 100 draws.
    pub(crate) fn unsigned(&mut self, percent: usize) -> u64 {
        let bits = self.bits();
        if self.chance(percent) {
            bits | 1 << 63
        } else {
            bits & !(1 << 63)
        }
    }

    pub(crate) fn f64(&mut self) -> f64 {
        match self.below(5) {
            0 => self.pick(&[
                0.0,
                -0.0,
                f64::NAN,
                -f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MIN_POSITIVE,
                5e-324,
                f64::MAX,
                f64::MIN,
                9_007_199_254_740_993.0,
            ]),
            1 => f64::from_bits(self.next_u64()),
            2 => self.bits() as i64 as f64,
            _ => (self.below(20_001) as f64 - 10_000.0) / 8.0,
        }
    }

    pub(crate) fn f32(&mut self) -> f32 {
        match self.below(4) {
            0 => self.pick(&[
                0.0,
                -0.0,
                f32::NAN,
                f32::INFINITY,
                f32::MIN_POSITIVE,
                f32::MAX,
            ]),
            1 => f32::from_bits(self.next_u64() as u32),
            _ => (self.below(2001) as f32 - 1000.0) / 4.0,
        }
    }

    pub(crate) fn char(&mut self) -> char {
        self.pick(CHARS)
    }

    /// Up to `max` characters; a NUL (legal in a string value, never in a
    /// key) in `nul` out of 100 strings.
    pub(crate) fn string(&mut self, max: usize, nul: usize) -> String {
        let mut chars: Vec<char> = (0..self.below(max + 1)).map(|_| self.char()).collect();
        if self.chance(nul) {
            chars.insert(self.below(chars.len() + 1), '\0');
        }
        chars.into_iter().collect()
    }

    /// A document key: random text or one of the keys `bson` or odm reads
    /// specially; a NUL (which `bson` refuses) in one out of 200.
    pub(crate) fn key(&mut self) -> String {
        if self.chance(20) {
            return self.pick(SPECIAL_KEYS).to_string();
        }
        let mut key = self.string(6, 0);
        if self.below(200) == 0 {
            key.push('\0');
        }
        key
    }

    pub(crate) fn date(&mut self) -> DateTime {
        DateTime::from_millis(self.bits() as i64)
    }

    pub(crate) fn bytes(&mut self, max: usize) -> Vec<u8> {
        (0..self.below(max + 1))
            .map(|_| self.next_u64() as u8)
            .collect()
    }

    pub(crate) fn decimal(&mut self) -> Decimal128 {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        bytes[8..].copy_from_slice(&self.next_u64().to_le_bytes());
        Decimal128::from_bytes(bytes)
    }

    pub(crate) fn binary(&mut self) -> Binary {
        let subtype = self.pick(&[
            BinarySubtype::Generic,
            BinarySubtype::Function,
            BinarySubtype::BinaryOld,
            BinarySubtype::UuidOld,
            BinarySubtype::Uuid,
            BinarySubtype::Md5,
            BinarySubtype::Encrypted,
            BinarySubtype::Column,
            BinarySubtype::Sensitive,
            BinarySubtype::UserDefined(0x80),
        ]);
        let len = if self.chance(50) { 16 } else { 20 };
        Binary {
            subtype,
            bytes: self.bytes(len),
        }
    }

    /// A random `Bson` value, nested up to `depth` levels. `exotic` in 100
    /// values are of the element types the fast paths leave to `bson`
    /// (decimal, binary, timestamp, regex, code, symbol, undefined, min and
    /// max keys); the rest are of the types they cover.
    pub(crate) fn bson(&mut self, depth: usize, exotic: usize) -> Bson {
        if self.chance(exotic) {
            return self.exotic(depth);
        }
        let kinds = if depth == 0 { 8 } else { 10 };
        match self.below(kinds) {
            0 => Bson::Double(self.f64()),
            1 => Bson::String(self.string(8, 2)),
            2 => Bson::Boolean(self.chance(50)),
            3 => Bson::Null,
            4 => Bson::Int32(self.bits() as i32),
            5 => Bson::Int64(self.bits() as i64),
            6 => Bson::ObjectId(self.object_id()),
            7 => Bson::DateTime(self.date()),
            8 => Bson::Array(
                (0..self.below(5))
                    .map(|_| self.bson(depth - 1, exotic))
                    .collect(),
            ),
            _ => Bson::Document(self.document(depth - 1, exotic)),
        }
    }

    fn exotic(&mut self, depth: usize) -> Bson {
        match self.below(10) {
            0 => Bson::Decimal128(self.decimal()),
            1 => Bson::Binary(self.binary()),
            2 => Bson::Timestamp(Timestamp {
                time: self.next_u64() as u32,
                increment: self.next_u64() as u32,
            }),
            3 => {
                let pattern = self.string(5, 1);
                let options = self.pick(&["", "i", "im", "mi", "x", "ilmsux"]);
                Bson::RegularExpression(crate::bson_release::testing::regex(&pattern, options))
            }
            4 => Bson::JavaScriptCode(self.string(8, 1)),
            5 => Bson::JavaScriptCodeWithScope(JavaScriptCodeWithScope {
                code: self.string(8, 1),
                scope: self.document(depth.min(1), 0),
            }),
            6 => Bson::Symbol(self.string(8, 1)),
            7 => Bson::Undefined,
            8 => Bson::MaxKey,
            _ => Bson::MinKey,
        }
    }

    /// A document of up to 5 random keys (a key drawn twice is kept once).
    pub(crate) fn document(&mut self, depth: usize, exotic: usize) -> Document {
        (0..self.below(6))
            .map(|_| (self.key(), self.bson(depth, exotic)))
            .collect()
    }
}

/// The runs of an equivalence test: `(seed of case 0, number of cases)`.
///
/// `ODM_EQUIV_SEED` (decimal or `0x` hex) repeats a run and
/// `ODM_EQUIV_CASES` sizes it (default 100,000); case `i` uses seed
/// `base + i`, which a failure prints. Without `ODM_EQUIV_SEED` each run
/// draws a new base, except under `CI`, which replays a fixed one.
pub(crate) fn run_config() -> (u64, usize) {
    static CONFIG: std::sync::OnceLock<(u64, usize)> = std::sync::OnceLock::new();
    *CONFIG.get_or_init(config)
}

/// One base per process, so all equivalence tests print the same one.
fn config() -> (u64, usize) {
    let base = match std::env::var("ODM_EQUIV_SEED") {
        Ok(s) => {
            let parsed = match s.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => s.parse(),
            };
            parsed.unwrap_or_else(|e| panic!("ODM_EQUIV_SEED={s:?}: {e}"))
        }
        Err(_) if std::env::var_os("CI").is_some() => 0x0D0_2026,
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1),
    };
    let cases = std::env::var("ODM_EQUIV_CASES")
        .ok()
        .map(|n| n.parse().expect("ODM_EQUIV_CASES is a number"))
        .unwrap_or(100_000);
    (base, cases)
}

/// How the cases of an equivalence test went.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Handled by the fast path (and equal to `bson`'s result).
    pub fast: usize,
    /// Left to `bson`, which handled them.
    pub fallback: usize,
    /// Refused by `bson` (and so left to it by the fast path).
    pub refused: usize,
}

impl Tally {
    /// Counts one case: whether the fast path handled it, whether `bson` did.
    pub(crate) fn count(&mut self, fast: bool, bson: bool) {
        match (fast, bson) {
            (true, _) => self.fast += 1,
            (false, true) => self.fallback += 1,
            (false, false) => self.refused += 1,
        }
    }

    /// A run of `cases` is no proof unless each outcome is common: at least
    /// one case in 20 (checked from 10,000 cases on).
    pub(crate) fn assert_each_outcome_common(&self, cases: usize) {
        if cases < 10_000 {
            return;
        }
        for (outcome, n) in [
            ("fast", self.fast),
            ("fallback", self.fallback),
            ("refused", self.refused),
        ] {
            assert!(n >= cases / 20, "too few {outcome} cases: {self:?}");
        }
    }
}
