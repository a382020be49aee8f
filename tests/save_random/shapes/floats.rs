//! Shape 2: floats (-0.0, NaN) and mixed-type arrays.

use std::cmp::Ordering;
use std::fmt;

use odm::prelude::*;
use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde::{Deserialize, Serialize};

use super::{Shape, Spot};
use crate::save_random::generator::{
    anew, edit_at, float, mutate_vec, one_different, Rng, SPECIAL_FLOATS,
};

/// An `Int32` that does not accept an `Int64` (nor a double), so `Int64 1`
/// and `Int32 1` keep their types through the untagged enum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct I32(pub i32);

/// An `Int64` that does not accept an `Int32`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct I64(pub i64);

impl<'de> Deserialize<'de> for I32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = I32;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an Int32")
            }
            fn visit_i32<E: de::Error>(self, v: i32) -> Result<I32, E> {
                Ok(I32(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<I32, E> {
                Err(E::invalid_type(Unexpected::Signed(v), &self))
            }
        }
        d.deserialize_i32(V)
    }
}

impl<'de> Deserialize<'de> for I64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = I64;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an Int64")
            }
            fn visit_i32<E: de::Error>(self, v: i32) -> Result<I64, E> {
                Err(E::invalid_type(Unexpected::Signed(v.into()), &self))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<I64, E> {
                Ok(I64(v))
            }
        }
        d.deserialize_i64(V)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Mixed {
    I(I32),
    L(I64),
    F(f64),
    S(String),
}

const MIXED: &[Mixed] = &[
    Mixed::I(I32(1)),
    Mixed::I(I32(0)),
    Mixed::L(I64(1)),
    Mixed::L(I64(0)),
    Mixed::F(1.0),
    Mixed::F(0.0),
    Mixed::F(-0.0),
    Mixed::S(String::new()),
];

/// No two equal by value across types.
fn plain_mixed(rng: &mut Rng) -> Mixed {
    match rng.below(4) {
        0 => Mixed::I(I32(1)),
        1 => Mixed::L(I64(2)),
        2 => Mixed::F(3.5),
        _ => Mixed::S("1".into()),
    }
}

fn mixed(rng: &mut Rng) -> Mixed {
    if rng.plain {
        plain_mixed(rng)
    } else if rng.chance(15) {
        Mixed::S("1".into())
    } else {
        rng.pick(MIXED)
    }
}

fn mixed_cmp(a: &Mixed, b: &Mixed) -> Ordering {
    fn rank(m: &Mixed) -> (u8, f64, &str) {
        match m {
            Mixed::I(I32(i)) => (0, f64::from(*i), ""),
            Mixed::L(I64(l)) => (1, *l as f64, ""),
            Mixed::F(f) => (2, *f, ""),
            Mixed::S(s) => (3, 0.0, s),
        }
    }
    let (ra, fa, sa) = rank(a);
    let (rb, fb, sb) = rank(b);
    ra.cmp(&rb).then(fa.total_cmp(&fb)).then_with(|| sa.cmp(sb))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rand_floats")]
pub struct Floats {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub x: f64,
    pub xs: Vec<f64>,
    pub mixed: Vec<Mixed>,
    /// NaN and infinities live here; it only grows or changes in place,
    /// since the test server cannot `$pullAll` a NaN.
    pub keep: Vec<f64>,
}

impl Shape for Floats {
    const NAME: &'static str = "floats";
    const TEST: &'static str = "random_floats";

    fn one_element(&mut self, rng: &mut Rng) -> Option<(String, Spot)> {
        let array = rng.below(3);
        let (d, index) = match array {
            0 => one_different("xs", &mut self.xs, rng, &mut anew(&mut float), None)?,
            1 => one_different("mixed", &mut self.mixed, rng, &mut anew(&mut mixed), None)?,
            _ => one_different(
                "keep",
                &mut self.keep,
                rng,
                &mut anew(&mut |rng: &mut Rng| rng.pick(SPECIAL_FLOATS)),
                None,
            )?,
        };
        Some((d, Spot { array, index }))
    }

    fn edit_element(&mut self, spot: Spot, rng: &mut Rng) -> Option<String> {
        let i = spot.index;
        match spot.array {
            0 => edit_at("xs", &mut self.xs, i, rng, &mut |x, rng| {
                *x = float(rng);
                format!(" = {x:?}")
            }),
            1 => edit_at("mixed", &mut self.mixed, i, rng, &mut |x, rng| {
                *x = mixed(rng);
                format!(" = {x:?}")
            }),
            _ => edit_at("keep", &mut self.keep, i, rng, &mut |x, rng| {
                *x = rng.pick(SPECIAL_FLOATS);
                format!(" = {x:?}")
            }),
        }
    }

    fn generate(rng: &mut Rng) -> Self {
        Floats {
            id: rng.object_id(),
            x: rng.pick(SPECIAL_FLOATS),
            xs: (0..rng.below(5)).map(|_| float(rng)).collect(),
            mixed: (0..rng.below(5)).map(|_| mixed(rng)).collect(),
            keep: (0..rng.below(3))
                .map(|_| rng.pick(SPECIAL_FLOATS))
                .collect(),
        }
    }

    fn mutate(&mut self, rng: &mut Rng) -> String {
        match rng.weighted(&[5, 5, 1, 1]) {
            0 => mutate_vec(
                "xs",
                &mut self.xs,
                rng,
                &mut float,
                &|a, b| a.total_cmp(b),
                &mut |x, rng| {
                    *x = float(rng);
                    format!("= {x:?}")
                },
            ),
            1 => mutate_vec(
                "mixed",
                &mut self.mixed,
                rng,
                &mut mixed,
                &mixed_cmp,
                &mut |x, rng| {
                    *x = mixed(rng);
                    format!("= {x:?}")
                },
            ),
            2 => {
                self.x = rng.pick(SPECIAL_FLOATS);
                format!("x = {:?}", self.x)
            }
            _ => {
                let v = rng.pick(SPECIAL_FLOATS);
                if self.keep.is_empty() || rng.chance(50) {
                    self.keep.push(v);
                    format!("keep: push {v:?}")
                } else {
                    let i = rng.below(self.keep.len());
                    self.keep[i] = v;
                    format!("keep[{i}] = {v:?}")
                }
            }
        }
    }
}
