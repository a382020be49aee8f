//! Shape 10: a model at schema version 3 whose documents are stored at any
//! version 0..=3 (issue 31): each history starts from a document as an
//! older release wrote it, so its first saves write upgrades (renamed,
//! split, retyped and dropped fields) beside the edits, and a stale copy
//! loaded before the upgrade must fail instead of writing over it.

use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::mongoose::MComment;
use super::{Insert, Shape};
use crate::save_random::generator::{mutate_vec, s, str_vec, strings, Rng};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Person {
    pub first: String,
    pub last: String,
}

/// v1: `heading` renamed `title`, `score` added (as text); v2: `full`
/// ("first|last") split into `person`, `legacy` dropped; v3: `score` an
/// integer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "rand_versioned", schema_version = 3, migrate = Self::upgrade)]
pub struct Versioned {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    pub tags: Vec<String>,
    pub comments: Vec<MComment>,
    pub person: Person,
    pub score: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Versioned {
    fn upgrade(doc: &mut BsonDocument, from: u32) -> Result<(), MigrationError> {
        match from {
            0 => {
                let heading = doc
                    .remove("heading")
                    .ok_or(MigrationError::new("no heading"))?;
                doc.insert("title", heading);
                doc.insert("score", "0");
            }
            1 => {
                let full = doc.remove("full").ok_or(MigrationError::new("no full"))?;
                let full = full.as_str().unwrap_or_default().to_string();
                let (first, last) = full.split_once('|').unwrap_or((&full, ""));
                doc.insert("person", doc! { "first": first, "last": last });
                doc.remove("legacy");
            }
            2 => {
                let score = doc
                    .get_str("score")
                    .unwrap_or("0")
                    .parse::<i32>()
                    .unwrap_or(0);
                doc.insert("score", score);
            }
            _ => return Err(MigrationError::new(format!("no step from {from}"))),
        }
        Ok(())
    }

    /// The document as the release of schema version `version` stored it.
    fn stored_at(&self, version: u32, rng: &mut Rng) -> BsonDocument {
        let comments = crate::save_random::checks::ser(self)
            .get("comments")
            .cloned()
            .unwrap_or(Bson::Null);
        let full = format!("{}|{}", self.person.first, self.person.last);
        let mut doc = doc! { "_id": self.id };
        match version {
            0 => {
                doc.insert("heading", &self.title);
            }
            _ => {
                doc.insert("title", &self.title);
            }
        }
        doc.insert("tags", self.tags.clone());
        doc.insert("comments", comments);
        if version < 2 {
            doc.insert("full", full);
            doc.insert("legacy", (0..rng.below(3) as i32).collect::<Vec<i32>>());
        } else {
            doc.insert(
                "person",
                doc! { "first": &self.person.first, "last": &self.person.last },
            );
        }
        match version {
            0 => {}
            1 | 2 => {
                doc.insert("score", self.score.to_string());
            }
            _ => {
                doc.insert("score", self.score);
            }
        }
        if let Some(note) = &self.note {
            doc.insert("note", note);
        }
        if version > 0 {
            doc.insert("__sv", version as i32);
        }
        doc
    }
}

fn comment(rng: &mut Rng) -> MComment {
    MComment {
        id: rng.object_id(),
        text: s(rng),
        votes: rng.below(5) as i32,
    }
}

/// A name part without `|`.
fn part(rng: &mut Rng) -> String {
    s(rng).replace('|', "")
}

impl Shape for Versioned {
    const NAME: &'static str = "versioned";
    const TEST: &'static str = "random_older_schema_versions";
    const INSERT: Insert = Insert::Older;

    fn generate(rng: &mut Rng) -> Self {
        Versioned {
            id: rng.object_id(),
            title: s(rng),
            tags: strings(rng, 4),
            comments: (0..rng.below(4)).map(|_| comment(rng)).collect(),
            person: Person {
                first: part(rng),
                last: part(rng),
            },
            score: rng.below(50) as i32,
            note: rng.chance(50).then(|| s(rng)),
        }
    }

    fn older(&self, rng: &mut Rng) -> (u32, BsonDocument) {
        let version = rng.below(4) as u32;
        (version, self.stored_at(version, rng))
    }

    fn mutate(&mut self, rng: &mut Rng) -> String {
        match rng.weighted(&[1, 1, 1, 1, 3, 4]) {
            0 => {
                self.title = s(rng);
                format!("title = {:?}", self.title)
            }
            1 => {
                self.person.first = part(rng);
                format!("person.first = {:?}", self.person.first)
            }
            2 => {
                self.score = rng.below(99) as i32;
                format!("score = {}", self.score)
            }
            3 => {
                self.note = rng.chance(50).then(|| s(rng));
                format!("note = {:?}", self.note)
            }
            4 => str_vec("tags", &mut self.tags, rng),
            _ => mutate_vec(
                "comments",
                &mut self.comments,
                rng,
                &mut comment,
                &|a, b| a.votes.cmp(&b.votes).then(a.id.cmp(&b.id)),
                &mut |c, rng| {
                    c.votes = rng.below(9) as i32;
                    format!(".votes = {}", c.votes)
                },
            ),
        }
    }

    fn edit_in_place(&mut self, rng: &mut Rng) -> Option<String> {
        if self.comments.is_empty() {
            return None;
        }
        let i = rng.below(self.comments.len());
        self.comments[i].votes += 1;
        Some(format!("comments[{i}].votes += 1 (in place)"))
    }

    fn rewrite(&mut self, _rng: &mut Rng) -> Option<String> {
        self.comments.sort_by_key(|c| std::cmp::Reverse(c.votes));
        self.tags.reverse();
        Some("comments: by votes, descending; tags: reverse".into())
    }
}
