//! Shape 7: an `Option` id, generated on insert.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Insert, Shape};
use crate::save_random::generator::{s, str_vec, strings, Rng};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rand_option_ids")]
pub struct OptionId {
    #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
    pub id: Option<ObjectId>,
    pub name: String,
    pub n: i32,
    pub tags: Vec<String>,
}

impl Shape for OptionId {
    const NAME: &'static str = "option_id";
    const TEST: &'static str = "random_option_id";
    const INSERT: Insert = Insert::NewDocWithoutId;

    fn generate(rng: &mut Rng) -> Self {
        OptionId {
            id: None,
            name: s(rng),
            n: 0,
            tags: strings(rng, 3),
        }
    }

    fn mutate(&mut self, rng: &mut Rng) -> String {
        match rng.weighted(&[1, 1, 3]) {
            0 => {
                self.name = s(rng);
                format!("name = {:?}", self.name)
            }
            1 => {
                self.n = rng.below(100) as i32;
                format!("n = {}", self.n)
            }
            _ => str_vec("tags", &mut self.tags, rng),
        }
    }
}
