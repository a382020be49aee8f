//! Shape 5: arrays of sub-documents with and without `_id`.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Shape, Spot};
use crate::save_random::generator::{
    anew, edit_at, edited, mutate_vec, new_str, one_different, s, str_vec, strings, Rng,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
pub struct Comment {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub text: String,
    pub replies: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
pub struct Note {
    pub text: String,
    pub tags: Vec<String>,
}

fn comment(rng: &mut Rng) -> Comment {
    Comment {
        id: rng.object_id(),
        text: s(rng),
        replies: strings(rng, 2),
    }
}

fn note(rng: &mut Rng) -> Note {
    Note {
        text: s(rng),
        tags: strings(rng, 2),
    }
}

fn edit_comment(c: &mut Comment, rng: &mut Rng) -> String {
    if rng.chance(40) {
        c.text = s(rng);
        format!(".text = {:?}", c.text)
    } else {
        str_vec(".replies", &mut c.replies, rng)
    }
}

fn edit_note(n: &mut Note, rng: &mut Rng) -> String {
    if rng.chance(40) {
        n.text = s(rng);
        format!(".text = {:?}", n.text)
    } else {
        str_vec(".tags", &mut n.tags, rng)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rand_subdocs")]
pub struct SubDocs {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    pub tags: Vec<String>,
    pub comments: Vec<Comment>,
    pub notes: Vec<Note>,
}

impl Shape for SubDocs {
    const NAME: &'static str = "subdocs";
    const TEST: &'static str = "random_subdocs";

    fn edit_in_place(&mut self, rng: &mut Rng) -> Option<String> {
        match rng.below(3) {
            0 if !self.tags.is_empty() => {
                let i = rng.below(self.tags.len());
                self.tags[i] = s(rng);
                Some(format!("tags[{i}] = {:?} (in place)", self.tags[i]))
            }
            1 if !self.comments.is_empty() => {
                let i = rng.below(self.comments.len());
                self.comments[i].text = s(rng);
                Some(format!(
                    "comments[{i}].text = {:?} (in place)",
                    self.comments[i].text
                ))
            }
            _ if !self.notes.is_empty() => {
                let i = rng.below(self.notes.len());
                self.notes[i].text = s(rng);
                Some(format!(
                    "notes[{i}].text = {:?} (in place)",
                    self.notes[i].text
                ))
            }
            _ => None,
        }
    }

    fn rewrite(&mut self, rng: &mut Rng) -> Option<String> {
        Some(match rng.below(4) {
            0 => {
                self.tags.sort();
                "tags: sort".into()
            }
            1 => {
                self.tags.reverse();
                self.comments.reverse();
                "tags, comments: reverse".into()
            }
            2 => {
                self.notes.sort_by(|a, b| b.text.cmp(&a.text));
                self.comments.insert(0, comment(rng));
                "notes: sort descending; comments: insert at 0".into()
            }
            _ => {
                self.tags = strings(rng, 3);
                self.notes = vec![note(rng)];
                "tags, notes: assigned".into()
            }
        })
    }

    fn one_element(&mut self, rng: &mut Rng) -> Option<(String, Spot)> {
        let array = rng.below(3);
        let (d, index) = match array {
            0 => one_different("tags", &mut self.tags, rng, &mut anew(&mut s), None)?,
            1 => one_different(
                "comments",
                &mut self.comments,
                rng,
                &mut edited(&mut edit_comment),
                None,
            )?,
            _ => one_different(
                "notes",
                &mut self.notes,
                rng,
                &mut edited(&mut edit_note),
                None,
            )?,
        };
        Some((d, Spot { array, index }))
    }

    fn edit_element(&mut self, spot: Spot, rng: &mut Rng) -> Option<String> {
        let i = spot.index;
        match spot.array {
            0 => edit_at("tags", &mut self.tags, i, rng, &mut new_str),
            1 => edit_at("comments", &mut self.comments, i, rng, &mut edit_comment),
            _ => edit_at("notes", &mut self.notes, i, rng, &mut edit_note),
        }
    }

    fn generate(rng: &mut Rng) -> Self {
        SubDocs {
            id: rng.object_id(),
            title: s(rng),
            tags: strings(rng, 3),
            comments: (0..rng.below(4)).map(|_| comment(rng)).collect(),
            notes: (0..rng.below(3)).map(|_| note(rng)).collect(),
        }
    }

    fn mutate(&mut self, rng: &mut Rng) -> String {
        match rng.weighted(&[1, 2, 5, 3]) {
            0 => {
                self.title = s(rng);
                format!("title = {:?}", self.title)
            }
            1 => str_vec("tags", &mut self.tags, rng),
            2 => mutate_vec(
                "comments",
                &mut self.comments,
                rng,
                &mut comment,
                &|a, b| a.text.cmp(&b.text).then(a.id.cmp(&b.id)),
                &mut edit_comment,
            ),
            _ => mutate_vec(
                "notes",
                &mut self.notes,
                rng,
                &mut note,
                &|a, b| a.text.cmp(&b.text).then(a.tags.cmp(&b.tags)),
                &mut edit_note,
            ),
        }
    }
}
