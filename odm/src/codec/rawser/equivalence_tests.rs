//! The fast serializer against `bson`'s own, on 100,000 random values (see
//! `random_values`): nested structs, options, maps with unicode and
//! special keys, every serde enum form, every integer width (`u64` above
//! `i64::MAX` included, which `bson` refuses), NaN, -0.0 and the other
//! float edges, `DateTime`, `ObjectId`, `Decimal128`, binary, `Bson` trees
//! of every element type, and values `bson` refuses at the top level.
//!
//! For each value: whenever the fast path writes bytes, `bson` writes the
//! same bytes (it never writes what `bson` refuses), and what odm's
//! serialization returns (`codec::to_raw_sized`, the fast path with its
//! fallback; on every 8th value) equals `bson::to_raw_document_buf`'s result: the same bytes,
//! or an error with the same text.

use serde::Serialize;

use super::to_vec;
use crate::codec::random_values::{any_root, run_config, AnyRoot, Rng, Tally};
use crate::codec::to_raw_sized;
use crate::error::Error;

fn check<T: Serialize + std::fmt::Debug>(value: &T, tally: &mut Tally, seed: u64) {
    let replay = || {
        format!("replay: ODM_EQUIV_SEED={seed:#x} ODM_EQUIV_CASES=1 cargo test -p odm-mongo --lib rawser::equivalence\nvalue: {value:?}")
    };
    let expected = crate::bson_release::testing::to_raw_document_buf(value);
    let fast = to_vec(value, 0);
    match (&fast, &expected) {
        (Some(fast), Ok(doc)) => assert!(fast == doc.as_bytes(), "different bytes\n{}", replay()),
        (Some(_), Err(e)) => panic!("the fast path wrote what bson refuses: {e}\n{}", replay()),
        (None, _) => {}
    }
    tally.count(fast.is_some(), expected.is_ok());
    // odm's serialization is the fast path with `bson` behind it: checked
    // on every 8th value, the rest would only repeat the work above.
    if !seed.is_multiple_of(8) {
        return;
    }
    match (to_raw_sized(value, 0), expected) {
        (Ok(odm), Ok(bson)) => assert!(odm == bson, "odm's bytes differ\n{}", replay()),
        (Err(Error::Serialize(odm)), Err(bson)) => {
            assert_eq!(odm.to_string(), bson.to_string(), "{}", replay())
        }
        (odm, bson) => panic!("odm: {odm:?}, bson: {bson:?}\n{}", replay()),
    }
}

#[test]
fn random_values_serialize_exactly_as_bson_does() {
    let (base, cases) = run_config();
    let mut tally = Tally::default();
    for i in 0..cases as u64 {
        let seed = base.wrapping_add(i);
        let mut rng = Rng::new(seed);
        match any_root(&mut rng) {
            AnyRoot::Root(v) => check(&v, &mut tally, seed),
            AnyRoot::Map(v) => check(&v, &mut tally, seed),
            AnyRoot::Node(v) => check(&v, &mut tally, seed),
            AnyRoot::Bson(v) => check(&v, &mut tally, seed),
            AnyRoot::Enum(v) => check(&v, &mut tally, seed),
            AnyRoot::List(v) => check(&v, &mut tally, seed),
        }
    }
    println!("rawser equivalence, base seed {base:#x}, {cases} values: {tally:?}");
    tally.assert_each_outcome_common(cases);
}

/// The `bson` releases the fast paths (this serializer and `rawde`) were
/// proven equal to, by these tests and `rawde/equivalence_tests.rs`, run
/// once per release: bson 2 (the default feature) and bson 3 (`bson-3`).
const PROVEN_AGAINST_BSON: [&str; 2] = ["2.15.0", "3.1.0"];

/// The fast paths copy `bson`'s behaviour, not its code: a new `bson` may
/// write or read differently. Upgrading it fails this test, so the
/// equivalence tests are run (and, if need be, extended) and the release
/// above updated on purpose rather than the upgrade passing silently.
#[test]
fn bson_is_the_release_the_fast_paths_were_proven_against() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock");
    let lock = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut versions: Vec<&str> = lock
        .split("[[package]]")
        .filter(|package| package.contains("\nname = \"bson\"\n"))
        .filter_map(|package| package.split("\nversion = \"").nth(1))
        .filter_map(|rest| rest.split('"').next())
        .collect();
    versions.sort_unstable();
    // This build runs the equivalence tests against one of them.
    let built = PROVEN_AGAINST_BSON[crate::bson_release::RELEASE as usize - 2];
    assert!(versions.contains(&built), "{versions:?}");
    assert_eq!(
        versions,
        PROVEN_AGAINST_BSON,
        "the workspace now builds bson {versions:?}: run the equivalence tests with many seeds, then update PROVEN_AGAINST_BSON"
    );
}
