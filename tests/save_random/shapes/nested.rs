//! Shapes 4 and 8: nested structs, in default mode and
//! `optimistic_concurrency`.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::Shape;
use crate::save_random::generator::{float, s, Rng};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
struct Level1 {
    x: i32,
    s: String,
    maybe: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    skip: Option<bool>,
    l2: Level2,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
struct Level2 {
    y: f64,
    z: Option<i32>,
    l3: Level3,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
struct Level3 {
    w: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    v: Option<i64>,
}

fn level2(rng: &mut Rng) -> Level2 {
    Level2 {
        y: float(rng),
        z: rng.chance(50).then(|| rng.below(9) as i32),
        l3: Level3 {
            w: s(rng),
            v: rng.chance(50).then(|| rng.below(9) as i64),
        },
    }
}

fn mutate_level2(path: &str, l2: &mut Level2, rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => {
            l2.y = float(rng);
            format!("{path}.y = {:?}", l2.y)
        }
        1 => {
            l2.z = rng.chance(50).then(|| rng.below(9) as i32);
            format!("{path}.z = {:?}", l2.z)
        }
        2 => {
            l2.l3.w = s(rng);
            format!("{path}.l3.w = {:?}", l2.l3.w)
        }
        _ => {
            l2.l3.v = rng.chance(50).then(|| rng.below(9) as i64);
            format!("{path}.l3.v = {:?}", l2.l3.v)
        }
    }
}

macro_rules! nested_shape {
    ($name:ident, $coll:literal, $shape:literal, $test:literal $(, $oc:ident)?) => {
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
        #[odm(collection = $coll $(, $oc)?)]
        pub struct $name {
            #[serde(rename = "_id")]
            id: ObjectId,
            title: String,
            l1: Level1,
            #[serde(skip_serializing_if = "Option::is_none", default)]
            opt: Option<Level2>,
            plain: Option<i64>,
        }

        impl Shape for $name {
            const NAME: &'static str = $shape;
            const TEST: &'static str = $test;

            fn edit_in_place(&mut self, rng: &mut Rng) -> Option<String> {
                Some(match &mut self.opt {
                    Some(l2) if rng.chance(70) => mutate_level2("opt", l2, rng),
                    _ => mutate_level2("l1.l2", &mut self.l1.l2, rng),
                })
            }

            fn rewrite(&mut self, rng: &mut Rng) -> Option<String> {
                Some(if self.opt.is_some() && rng.chance(60) {
                    self.opt = None;
                    "opt = None (unset of the parent)".into()
                } else {
                    self.opt = Some(level2(rng));
                    self.l1.maybe = None;
                    format!("opt = {:?} (replaced); l1.maybe = None", self.opt)
                })
            }

            fn generate(rng: &mut Rng) -> Self {
                $name {
                    id: rng.object_id(),
                    title: s(rng),
                    l1: Level1 {
                        x: 1,
                        s: s(rng),
                        maybe: rng.chance(50).then(|| s(rng)),
                        skip: rng.chance(50).then(|| rng.chance(50)),
                        l2: level2(rng),
                    },
                    opt: rng.chance(50).then(|| level2(rng)),
                    plain: rng.chance(50).then(|| rng.below(9) as i64),
                }
            }

            fn mutate(&mut self, rng: &mut Rng) -> String {
                match rng.weighted(&[1, 1, 1, 1, 1, 4, 3, 1]) {
                    0 => {
                        self.title = s(rng);
                        format!("title = {:?}", self.title)
                    }
                    1 => {
                        self.l1.x = rng.below(9) as i32;
                        format!("l1.x = {}", self.l1.x)
                    }
                    2 => {
                        self.l1.s = s(rng);
                        format!("l1.s = {:?}", self.l1.s)
                    }
                    3 => {
                        self.l1.maybe = rng.chance(50).then(|| s(rng));
                        format!("l1.maybe = {:?}", self.l1.maybe)
                    }
                    4 => {
                        self.l1.skip = rng.chance(50).then(|| rng.chance(50));
                        format!("l1.skip = {:?}", self.l1.skip)
                    }
                    5 => mutate_level2("l1.l2", &mut self.l1.l2, rng),
                    6 => match &mut self.opt {
                        Some(l2) if rng.chance(70) => mutate_level2("opt", l2, rng),
                        _ => {
                            self.opt = rng.chance(60).then(|| level2(rng));
                            format!("opt = {:?}", self.opt)
                        }
                    },
                    _ => {
                        self.plain = rng.chance(50).then(|| rng.below(9) as i64);
                        format!("plain = {:?}", self.plain)
                    }
                }
            }
        }
    };
}

nested_shape!(Nested, "rand_nested", "nested", "random_nested");
nested_shape!(
    NestedOc,
    "rand_nested_oc",
    "nested_oc",
    "random_nested_optimistic",
    optimistic_concurrency
);
