//! The fast deserializer against `bson`'s own, on 100,000 random stored
//! documents: random values of the types of `random_values` (every serde
//! form, every integer width, float edges, `DateTime`, `ObjectId`,
//! `Decimal128`, binary, `Bson` trees of every element type) as `bson`
//! writes them, then, for most, edited as other code could have stored
//! them (a value of another type, an integer at another width or as a
//! double, a key missing or added, a version key and a fence at the top)
//! and for some corrupted byte by byte or given a key twice.
//!
//! For each document and target type: whenever the fast path decodes a
//! value, the fallback odm uses (`bson::from_slice` through `Strict`, on
//! the document without its version key and fence) decodes the same value
//! (it never accepts what `bson` refuses), and `codec::decode`, what every
//! load calls, returns that value (checked on every 8th document).

use std::fmt::Debug;

use mongodb::bson::{Bson, Document, RawDocument, RawDocumentBuf};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::from_slice;
use crate::codec::decode;
use crate::codec::random_values::{
    any_root, run_config, AnyRoot, External, Node, Rng, Root, Tally,
};
use crate::codec::strict::Strict;
use crate::codec::version_key::hidden;

struct Case<'a> {
    bytes: &'a [u8],
    skip: Option<&'static str>,
    seed: u64,
}

impl Case<'_> {
    fn replay(&self) -> String {
        format!(
            "replay: ODM_EQUIV_SEED={:#x} ODM_EQUIV_CASES=1 cargo test -p odm-mongo --lib rawde::equivalence\nskip: {:?}\nbytes: {:?}\ndocument: {:?}",
            self.seed,
            self.skip,
            self.bytes,
            RawDocument::from_bytes(self.bytes).map(|d| d.iter().collect::<Vec<_>>())
        )
    }

    fn check<T: DeserializeOwned + Debug>(&self, tally: &mut Tally) {
        let fast = from_slice::<T>(self.bytes, self.skip.into()).map(|v| format!("{v:?}"));
        let raw = RawDocument::from_bytes(self.bytes);
        let slow = match &raw {
            Ok(raw) => crate::bson_release::testing::from_slice::<Strict<T>>(
                hidden(raw, self.skip).as_bytes(),
            ),
            Err(_) => crate::bson_release::testing::from_slice::<Strict<T>>(self.bytes),
        }
        .map(|v| format!("{:?}", v.0));
        match (&fast, &slow) {
            (Some(fast), Ok(slow)) => {
                assert!(
                    fast == slow,
                    "fast: {fast}\nbson: {slow}\n{}",
                    self.replay()
                );
            }
            (Some(fast), Err(e)) => panic!(
                "the fast path decoded what bson refuses ({e}): {fast}\n{}",
                self.replay()
            ),
            (None, _) => {}
        }
        tally.count(fast.is_some(), slow.is_ok());
        // What a load calls (it only ever sees documents the driver read):
        // on every 8th document, the rest would only repeat the work above.
        if let (Ok(raw), 0) = (raw, self.seed % 8) {
            let odm = decode::<T>(raw, self.skip.into())
                .map(|v| format!("{v:?}"))
                .map_err(|(_, e)| e.to_string());
            let bson = slow.map_err(|e| e.to_string());
            assert!(
                odm == bson,
                "odm: {odm:?}\nbson: {bson:?}\n{}",
                self.replay()
            );
        }
    }
}

fn to_vec<T: Serialize>(value: &T) -> Option<Vec<u8>> {
    crate::bson_release::testing::to_vec(value).ok()
}

/// One random stored document and the type to decode it as (`0` Root,
/// `1` a map of nodes, `2` a node, `3` a `Bson`, `4` an enum).
fn stored(rng: &mut Rng) -> (Vec<u8>, usize) {
    let (bytes, target) = match any_root(rng) {
        AnyRoot::Root(v) => (to_vec(&v), 0),
        AnyRoot::Map(v) => (to_vec(&v), 1),
        AnyRoot::Node(v) => (to_vec(&v), 2),
        AnyRoot::Bson(v) => (to_vec(&v), 3),
        AnyRoot::Enum(v) => (to_vec(&v), 4),
        AnyRoot::List(_) => (None, 0),
    };
    // `bson` refused the value: a random document instead.
    let bytes = bytes.unwrap_or_else(|| loop {
        if let Some(bytes) = to_vec(&rng.document(2, 10)) {
            break bytes;
        }
    });
    if rng.chance(40) {
        return (bytes, target);
    }
    let mut doc = RawDocumentBuf::from_bytes(bytes).unwrap();
    for _ in 0..rng.below(3) {
        doc = rng.edit(&doc);
    }
    if rng.chance(40) {
        let key = rng.pick(&["__v", "__fence"]);
        let value = rng.raw_value();
        crate::bson_release::append(&mut doc, key, value);
    }
    (doc.into_bytes(), target)
}

/// A top-level key stored twice, or one byte changed, added or removed.
fn corrupt(rng: &mut Rng, bytes: Vec<u8>) -> Vec<u8> {
    let doc = RawDocument::from_bytes(&bytes).unwrap();
    let elements: Vec<_> = doc
        .iter()
        .map(|e| {
            e.map(|(k, v)| (crate::bson_release::key_str(k), v))
                .unwrap()
        })
        .collect();
    if !elements.is_empty() && rng.chance(40) {
        let mut twice = RawDocumentBuf::new();
        let again = rng.below(elements.len());
        for (key, value) in &elements {
            crate::bson_release::append_ref(&mut twice, key, *value);
        }
        let (key, _) = elements[again];
        crate::bson_release::append_ref(&mut twice, key, elements[rng.below(elements.len())].1);
        return twice.into_bytes();
    }
    let mut bytes = bytes;
    let at = rng.below(bytes.len());
    match rng.below(3) {
        0 => bytes[at] = rng.next_u64() as u8,
        1 => bytes.insert(at, rng.next_u64() as u8),
        _ => {
            bytes.remove(at);
        }
    }
    bytes
}

/// Cases `from..to` of the run (two halves, so both cores share it).
fn run(from: usize, to: usize) {
    let (base, cases) = run_config();
    let (from, to) = (from * cases / 2, to * cases / 2);
    let mut tally = Tally::default();
    let mut as_document = Tally::default();
    for i in from as u64..to as u64 {
        let seed = base.wrapping_add(i);
        let mut rng = Rng::new(seed);
        let (mut bytes, target) = stored(&mut rng);
        if rng.chance(10) {
            bytes = corrupt(&mut rng, bytes);
        }
        let skip = rng.chance(60).then_some("__v");
        let case = Case {
            bytes: &bytes,
            skip,
            seed,
        };
        match target {
            0 => case.check::<Root>(&mut tally),
            1 => case.check::<std::collections::BTreeMap<String, Node>>(&mut tally),
            2 => case.check::<Node>(&mut tally),
            3 => case.check::<Bson>(&mut tally),
            _ => case.check::<External>(&mut tally),
        }
        if seed % 8 == 4 {
            case.check::<Document>(&mut as_document);
        }
    }
    println!(
        "rawde equivalence, base seed {base:#x}, documents {from}..{to}: {tally:?}; as Document: {as_document:?}"
    );
    tally.assert_each_outcome_common(to - from);
}

#[test]
fn random_documents_decode_exactly_as_bson_does_first_half() {
    run(0, 1);
}

#[test]
fn random_documents_decode_exactly_as_bson_does_second_half() {
    run(1, 2);
}
