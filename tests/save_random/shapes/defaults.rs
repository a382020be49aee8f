//! Shape 3: fields missing from the stored document, filled by
//! `serde(default)`.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Insert, Shape, Spot};
use crate::save_random::generator::{
    anew, edit_at, edited, int_vec, ints, mutate_vec, new_str, one_different, s, str_vec, strings,
    Rng,
};

/// Defaulted as a whole; its own fields are not, so a partial sub-document
/// in the store does not load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
pub struct Inner {
    pub a: String,
    pub b: i32,
    pub c: Vec<i32>,
}

impl Default for Inner {
    fn default() -> Self {
        Inner {
            a: "dflt".into(),
            b: 7,
            c: vec![1, 2],
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
pub struct Item {
    pub k: String,
    pub n: i32,
}

pub fn default_tags() -> Vec<String> {
    vec!["x".into(), "y".into()]
}

pub fn default_items() -> Vec<Item> {
    vec![
        Item {
            k: "i0".into(),
            n: 0,
        },
        Item {
            k: "i1".into(),
            n: 1,
        },
    ]
}

fn item(rng: &mut Rng) -> Item {
    Item {
        k: s(rng),
        n: rng.below(5) as i32,
    }
}

fn edit_item(x: &mut Item, rng: &mut Rng) -> String {
    if rng.chance(50) {
        x.k = s(rng);
        format!(".k = {:?}", x.k)
    } else {
        x.n = rng.below(9) as i32;
        format!(".n = {}", x.n)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rand_defaults")]
pub struct Defaults {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
    #[serde(default)]
    pub inner: Inner,
    #[serde(default = "default_tags")]
    pub tags: Vec<String>,
    #[serde(default = "default_items")]
    pub items: Vec<Item>,
}

impl Shape for Defaults {
    const NAME: &'static str = "defaults";
    const TEST: &'static str = "random_defaults";
    const INSERT: Insert = Insert::RawWithout(&["inner", "tags", "items"]);

    fn one_element(&mut self, rng: &mut Rng) -> Option<(String, Spot)> {
        let array = rng.below(2);
        let (d, index) = match array {
            0 => one_different("tags", &mut self.tags, rng, &mut anew(&mut s), None)?,
            _ => one_different(
                "items",
                &mut self.items,
                rng,
                &mut edited(&mut edit_item),
                None,
            )?,
        };
        Some((d, Spot { array, index }))
    }

    fn edit_element(&mut self, spot: Spot, rng: &mut Rng) -> Option<String> {
        let i = spot.index;
        match spot.array {
            0 => edit_at("tags", &mut self.tags, i, rng, &mut new_str),
            _ => edit_at("items", &mut self.items, i, rng, &mut edit_item),
        }
    }

    fn generate(rng: &mut Rng) -> Self {
        Defaults {
            id: rng.object_id(),
            name: s(rng),
            inner: Inner {
                a: s(rng),
                b: 3,
                c: ints(rng, 3),
            },
            tags: strings(rng, 3),
            items: (0..rng.below(3)).map(|_| item(rng)).collect(),
        }
    }

    fn mutate(&mut self, rng: &mut Rng) -> String {
        match rng.weighted(&[1, 2, 2, 2, 1, 4, 4]) {
            0 => {
                self.name = s(rng);
                format!("name = {:?}", self.name)
            }
            1 => {
                self.inner.a = s(rng);
                format!("inner.a = {:?}", self.inner.a)
            }
            2 => {
                self.inner.b = rng.below(100) as i32;
                format!("inner.b = {}", self.inner.b)
            }
            3 => int_vec("inner.c", &mut self.inner.c, rng),
            4 => {
                self.inner = Inner {
                    a: s(rng),
                    b: rng.below(100) as i32,
                    c: ints(rng, 2),
                };
                format!("inner = {:?}", self.inner)
            }
            5 => str_vec("tags", &mut self.tags, rng),
            _ => mutate_vec(
                "items",
                &mut self.items,
                rng,
                &mut item,
                &|a, b| a.k.cmp(&b.k).then(a.n.cmp(&b.n)),
                &mut edit_item,
            ),
        }
    }
}
