//! Shape 1: maps with keys that cannot be update paths.

use std::collections::{BTreeMap, HashMap};

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::Shape;
use crate::save_random::generator::{s, Rng, KEYS, PLAIN_KEYS};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rand_maps")]
pub struct Maps {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub n: i32,
    pub counters: HashMap<String, i32>,
    pub labels: BTreeMap<String, String>,
    pub nested: BTreeMap<String, BTreeMap<String, i32>>,
}

fn key(rng: &mut Rng) -> String {
    let keys = if rng.plain { PLAIN_KEYS } else { KEYS };
    rng.pick(keys).to_string()
}

fn is_awkward(k: &str) -> bool {
    k.is_empty() || k.starts_with('$') || k.contains('.')
}

fn existing_key<V>(rng: &mut Rng, keys: impl Iterator<Item = V>) -> Option<V> {
    let mut keys: Vec<V> = keys.collect();
    if keys.is_empty() {
        None
    } else {
        let i = rng.below(keys.len());
        Some(keys.swap_remove(i))
    }
}

fn counters(rng: &mut Rng) -> HashMap<String, i32> {
    (0..rng.below(4))
        .map(|_| (key(rng), rng.below(9) as i32))
        .collect()
}

impl Shape for Maps {
    const NAME: &'static str = "maps";
    const TEST: &'static str = "random_maps";

    fn edit_in_place(&mut self, rng: &mut Rng) -> Option<String> {
        let k = existing_key(rng, self.labels.keys().filter(|k| !is_awkward(k)).cloned())?;
        let v = s(rng);
        self.labels.insert(k.clone(), v.clone());
        Some(format!("labels[{k:?}] = {v:?} (in place)"))
    }

    fn rewrite(&mut self, rng: &mut Rng) -> Option<String> {
        // A key that cannot be a path: the map is saved whole.
        let k = rng.pick(&["a.b", "$x", "x.y.z"]).to_string();
        self.labels.insert(k.clone(), s(rng));
        Some(format!("labels[{k:?}] inserted (saved whole)"))
    }

    fn generate(rng: &mut Rng) -> Self {
        Maps {
            id: rng.object_id(),
            n: 0,
            counters: counters(rng),
            labels: (0..rng.below(4)).map(|_| (key(rng), s(rng))).collect(),
            nested: (0..rng.below(3))
                .map(|_| (key(rng), counters(rng).into_iter().collect()))
                .collect(),
        }
    }

    fn mutate(&mut self, rng: &mut Rng) -> String {
        match rng.weighted(&[4, 3, 3, 2, 3, 1, 2, 1, 1]) {
            0 => {
                let (k, v) = (key(rng), rng.below(9) as i32);
                self.counters.insert(k.clone(), v);
                format!("counters[{k:?}] = {v}")
            }
            1 => match existing_key(rng, self.counters.keys().cloned()) {
                Some(k) => {
                    self.counters.remove(&k);
                    format!("counters: remove {k:?}")
                }
                None => "counters: remove from empty (no-op)".into(),
            },
            2 => {
                let (k, v) = (key(rng), s(rng));
                let d = format!("labels[{k:?}] = {v:?}");
                self.labels.insert(k, v);
                d
            }
            3 => match existing_key(rng, self.labels.keys().cloned()) {
                Some(k) => {
                    self.labels.remove(&k);
                    format!("labels: remove {k:?}")
                }
                None => "labels: remove from empty (no-op)".into(),
            },
            4 => {
                let (k1, k2, v) = (key(rng), key(rng), rng.below(9) as i32);
                self.nested
                    .entry(k1.clone())
                    .or_default()
                    .insert(k2.clone(), v);
                format!("nested[{k1:?}][{k2:?}] = {v}")
            }
            5 => match existing_key(rng, self.nested.keys().cloned()) {
                Some(k) => {
                    self.nested.remove(&k);
                    format!("nested: remove {k:?}")
                }
                None => "nested: remove from empty (no-op)".into(),
            },
            6 => match existing_key(rng, self.nested.iter_mut()) {
                Some((k1, inner)) => match existing_key(rng, inner.keys().cloned()) {
                    Some(k2) => {
                        inner.remove(&k2);
                        format!("nested[{k1:?}]: remove {k2:?}")
                    }
                    None => format!("nested[{k1:?}]: remove from empty (no-op)"),
                },
                None => "nested: nothing to edit (no-op)".into(),
            },
            7 => {
                self.counters = counters(rng);
                format!("counters = {:?}", self.counters)
            }
            _ => {
                self.n = rng.below(100) as i32;
                format!("n = {}", self.n)
            }
        }
    }
}
