//! Shape 9: a document as Mongoose writes it (issue 21).

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Insert, Shape, Spot};
use crate::save_random::generator::{
    anew, edit_at, edited, mutate_vec, new_str, one_different, s, str_vec, strings, Rng,
};

/// A Mongoose array sub-document: its own `_id` first, a `Number` stored
/// as an Int32.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
pub struct MComment {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub text: String,
    pub votes: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
pub struct MMeta {
    pub votes: i32,
    pub favs: i32,
}

/// Stored raw in Mongoose's shape: schema order, `__v: 0` an Int32 after
/// the fields; every save must keep `__v` an Int32 (`check_saved`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rand_mongoose")]
pub struct MongoosePost {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    pub tags: Vec<String>,
    pub comments: Vec<MComment>,
    pub meta: MMeta,
}

fn m_comment(rng: &mut Rng) -> MComment {
    MComment {
        id: rng.object_id(),
        text: s(rng),
        votes: rng.below(5) as i32,
    }
}

fn edit_m_comment(c: &mut MComment, rng: &mut Rng) -> String {
    if rng.chance(50) {
        c.votes = rng.below(9) as i32;
        format!(".votes = {}", c.votes)
    } else {
        c.text = s(rng);
        format!(".text = {:?}", c.text)
    }
}

impl Shape for MongoosePost {
    const NAME: &'static str = "mongoose";
    const TEST: &'static str = "random_mongoose_documents";
    const INSERT: Insert = Insert::RawWithout(&[]);

    fn generate(rng: &mut Rng) -> Self {
        MongoosePost {
            id: rng.object_id(),
            title: s(rng),
            tags: strings(rng, 4),
            comments: (0..rng.below(4)).map(|_| m_comment(rng)).collect(),
            meta: MMeta {
                votes: rng.below(5) as i32,
                favs: rng.below(5) as i32,
            },
        }
    }

    fn mutate(&mut self, rng: &mut Rng) -> String {
        match rng.weighted(&[1, 1, 3, 4]) {
            0 => {
                self.title = s(rng);
                format!("title = {:?}", self.title)
            }
            1 => {
                self.meta.votes = rng.below(9) as i32;
                format!("meta.votes = {}", self.meta.votes)
            }
            2 => str_vec("tags", &mut self.tags, rng),
            _ => mutate_vec(
                "comments",
                &mut self.comments,
                rng,
                &mut m_comment,
                &|a, b| a.votes.cmp(&b.votes).then(a.id.cmp(&b.id)),
                &mut edit_m_comment,
            ),
        }
    }

    fn one_element(&mut self, rng: &mut Rng) -> Option<(String, Spot)> {
        let array = rng.below(2);
        let (d, index) = match array {
            0 => one_different("tags", &mut self.tags, rng, &mut anew(&mut s), None)?,
            _ => one_different(
                "comments",
                &mut self.comments,
                rng,
                &mut edited(&mut edit_m_comment),
                None,
            )?,
        };
        Some((d, Spot { array, index }))
    }

    fn edit_element(&mut self, spot: Spot, rng: &mut Rng) -> Option<String> {
        let i = spot.index;
        match spot.array {
            0 => edit_at("tags", &mut self.tags, i, rng, &mut new_str),
            _ => edit_at("comments", &mut self.comments, i, rng, &mut edit_m_comment),
        }
    }

    fn edit_in_place(&mut self, rng: &mut Rng) -> Option<String> {
        if !self.comments.is_empty() && rng.chance(60) {
            let i = rng.below(self.comments.len());
            self.comments[i].votes += 1;
            return Some(format!("comments[{i}].votes += 1 (in place)"));
        }
        if self.tags.is_empty() {
            return None;
        }
        let i = rng.below(self.tags.len());
        self.tags[i] = s(rng);
        Some(format!("tags[{i}] = {:?} (in place)", self.tags[i]))
    }

    fn rewrite(&mut self, rng: &mut Rng) -> Option<String> {
        if rng.chance(50) {
            self.tags.sort();
            self.comments.sort_by_key(|c| std::cmp::Reverse(c.votes));
            Some("tags: sort; comments: by votes, descending".into())
        } else {
            self.comments.insert(0, m_comment(rng));
            self.tags.reverse();
            Some("comments: insert at 0; tags: reverse".into())
        }
    }
}
