//! Shape 6: arrays of arrays.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Shape, Spot};
use crate::save_random::generator::{
    anew, edit_at, int_vec, ints, mutate_vec, one_different, str_vec, strings, Rng,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rand_grids")]
pub struct Grids {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub n: i32,
    pub grid: Vec<Vec<i32>>,
    pub words: Vec<Vec<String>>,
}

impl Shape for Grids {
    const NAME: &'static str = "grids";
    const TEST: &'static str = "random_arrays_of_arrays";

    fn edit_in_place(&mut self, rng: &mut Rng) -> Option<String> {
        let rows: Vec<usize> = (0..self.grid.len())
            .filter(|&i| !self.grid[i].is_empty())
            .collect();
        let i = *rows.get(rng.below(rows.len().max(1)))?;
        let j = rng.below(self.grid[i].len());
        self.grid[i][j] = 5 + rng.below(5) as i32;
        Some(format!("grid[{i}][{j}] = {} (in place)", self.grid[i][j]))
    }

    fn rewrite(&mut self, rng: &mut Rng) -> Option<String> {
        if rng.chance(50) {
            self.grid.reverse();
            Some("grid: reverse".into())
        } else {
            self.grid.iter_mut().for_each(|row| row.sort());
            self.grid.sort();
            Some("grid: sort every row, then the rows".into())
        }
    }

    fn one_element(&mut self, rng: &mut Rng) -> Option<(String, Spot)> {
        let (d, index) = if rng.chance(50) {
            one_different(
                "grid",
                &mut self.grid,
                rng,
                &mut anew(&mut |rng| ints(rng, 3)),
                None,
            )?
        } else {
            // A row whose elements keep their places but one.
            let mut one = |row: &Vec<i32>, rng: &mut Rng| {
                let mut row = row.clone();
                if let Some(x) = row.get_mut(rng.below(3)) {
                    *x = 5 + rng.below(5) as i32;
                }
                row
            };
            one_different("grid", &mut self.grid, rng, &mut one, None)?
        };
        Some((d, Spot { array: 0, index }))
    }

    fn edit_element(&mut self, spot: Spot, rng: &mut Rng) -> Option<String> {
        edit_at("grid", &mut self.grid, spot.index, rng, &mut |row, rng| {
            if row.is_empty() {
                return int_vec("", row, rng);
            }
            let j = rng.below(row.len());
            row[j] = 5 + rng.below(5) as i32;
            format!("[{j}] = {}", row[j])
        })
    }

    fn generate(rng: &mut Rng) -> Self {
        Grids {
            id: rng.object_id(),
            n: 0,
            grid: (0..rng.below(4)).map(|_| ints(rng, 3)).collect(),
            words: (0..rng.below(3)).map(|_| strings(rng, 2)).collect(),
        }
    }

    fn mutate(&mut self, rng: &mut Rng) -> String {
        match rng.weighted(&[1, 5, 4]) {
            0 => {
                self.n = rng.below(100) as i32;
                format!("n = {}", self.n)
            }
            1 => mutate_vec(
                "grid",
                &mut self.grid,
                rng,
                &mut |rng| ints(rng, 3),
                &|a, b| a.cmp(b),
                &mut |row, rng| int_vec("", row, rng),
            ),
            _ => mutate_vec(
                "words",
                &mut self.words,
                rng,
                &mut |rng| strings(rng, 2),
                &|a, b| a.cmp(b),
                &mut |row, rng| str_vec("", row, rng),
            ),
        }
    }
}
