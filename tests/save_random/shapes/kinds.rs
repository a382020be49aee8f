//! Shapes 10 and 11 (issue 33): enum models, in default mode and
//! `optimistic_concurrency`. Three kinds (two newtype variants and a
//! struct variant) share some field names (`title` of one type, `n` of
//! two types, `tags` everywhere, defaulted to a non-empty value so a
//! change of kind meets a field the store lacks whose value the new kind
//! shares), and a change draws a change of kind about one time in five:
//! the document must then hold exactly the new kind's fields.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Insert, Shape};
use crate::save_random::generator::{int_vec, ints, mutate_vec, s, str_vec, Rng};

pub fn default_tags() -> Vec<String> {
    vec!["x".into(), "y".into()]
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    pub n: i32,
    #[serde(default = "default_tags")]
    pub tags: Vec<String>,
    #[serde(default)]
    pub marks: Vec<i32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    #[serde(rename = "_id")]
    pub id: i32,
    pub what: String,
    pub done: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    pub n: String,
    #[serde(default = "default_tags")]
    pub tags: Vec<String>,
    #[serde(default)]
    pub steps: Vec<Step>,
}

fn note(rng: &mut Rng, id: ObjectId) -> Note {
    Note {
        id,
        title: s(rng),
        n: rng.below(9) as i32,
        tags: default_tags(),
        marks: ints(rng, 3),
    }
}

fn task(rng: &mut Rng, id: ObjectId) -> Task {
    Task {
        id,
        title: s(rng),
        n: s(rng),
        tags: default_tags(),
        steps: (0..rng.below(3)).map(|_| step(rng)).collect(),
    }
}

fn step(rng: &mut Rng) -> Step {
    Step {
        id: rng.below(1000) as i32,
        what: s(rng),
        done: rng.chance(50),
    }
}

fn steps(name: &str, v: &mut Vec<Step>, rng: &mut Rng) -> String {
    mutate_vec(
        name,
        v,
        rng,
        &mut step,
        &|a, b| a.id.cmp(&b.id),
        &mut |x, rng| {
            if rng.chance(50) {
                x.what = s(rng);
                format!(".what = {:?}", x.what)
            } else {
                x.done = !x.done;
                format!(".done = {}", x.done)
            }
        },
    )
}

/// What every kind of both models offers the generator: its id, its
/// `tags`, and a change within the kind.
trait KindOf {
    fn id(&self) -> ObjectId;
    fn tags(&mut self) -> &mut Vec<String>;
}

macro_rules! kinds_shape {
    ($name:ident, $coll:literal, $shape:literal, $test:literal $(, $oc:ident)?) => {
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
        #[odm(collection = $coll $(, $oc)?)]
        #[serde(tag = "kind")]
        pub enum $name {
            Note(Note),
            Task(Task),
            Link {
                #[serde(rename = "_id")]
                id: ObjectId,
                url: String,
                #[serde(default = "default_tags")]
                tags: Vec<String>,
                #[serde(default)]
                hits: Vec<i32>,
            },
        }

        impl KindOf for $name {
            fn id(&self) -> ObjectId {
                match self {
                    $name::Note(x) => x.id,
                    $name::Task(x) => x.id,
                    $name::Link { id, .. } => *id,
                }
            }

            fn tags(&mut self) -> &mut Vec<String> {
                match self {
                    $name::Note(x) => &mut x.tags,
                    $name::Task(x) => &mut x.tags,
                    $name::Link { tags, .. } => tags,
                }
            }
        }

        impl $name {
            /// A value of a random kind with the id `id`; the tags kept
            /// half the time.
            fn of_kind(rng: &mut Rng, id: ObjectId, tags: Option<Vec<String>>) -> $name {
                let mut value = match rng.below(3) {
                    0 => $name::Note(note(rng, id)),
                    1 => $name::Task(task(rng, id)),
                    _ => $name::Link {
                        id,
                        url: s(rng),
                        tags: default_tags(),
                        hits: ints(rng, 3),
                    },
                };
                if let Some(tags) = tags {
                    *value.tags() = tags;
                }
                value
            }

            fn kind(&self) -> &'static str {
                match self {
                    $name::Note(_) => "Note",
                    $name::Task(_) => "Task",
                    $name::Link { .. } => "Link",
                }
            }

            /// The value turned into another kind (or the same kind anew).
            fn change_kind(&mut self, rng: &mut Rng) -> String {
                let keep = rng.chance(50).then(|| self.tags().clone());
                let from = self.kind();
                *self = $name::of_kind(rng, self.id(), keep);
                format!("kind {from} -> {}: {:?}", self.kind(), self)
            }
        }

        impl Shape for $name {
            const NAME: &'static str = $shape;
            const TEST: &'static str = $test;
            const INSERT: Insert = Insert::RawWithout(&["tags", "marks", "steps", "hits"]);
            const KIND_KEY: Option<&'static str> = Some("kind");

            fn generate(rng: &mut Rng) -> Self {
                let id = rng.object_id();
                let tags = Some((0..rng.below(3)).map(|_| s(rng)).collect());
                $name::of_kind(rng, id, tags)
            }

            fn mutate(&mut self, rng: &mut Rng) -> String {
                if rng.chance(20) {
                    return self.change_kind(rng);
                }
                if rng.chance(30) {
                    return str_vec("tags", self.tags(), rng);
                }
                match self {
                    $name::Note(x) => match rng.below(3) {
                        0 => {
                            x.title = s(rng);
                            format!("title = {:?}", x.title)
                        }
                        1 => {
                            x.n = rng.below(9) as i32;
                            format!("n = {}", x.n)
                        }
                        _ => int_vec("marks", &mut x.marks, rng),
                    },
                    $name::Task(x) => match rng.below(3) {
                        0 => {
                            x.title = s(rng);
                            format!("title = {:?}", x.title)
                        }
                        1 => {
                            x.n = s(rng);
                            format!("n = {:?}", x.n)
                        }
                        _ => steps("steps", &mut x.steps, rng),
                    },
                    $name::Link { url, hits, .. } => match rng.below(2) {
                        0 => {
                            *url = s(rng);
                            format!("url = {url:?}")
                        }
                        _ => int_vec("hits", hits, rng),
                    },
                }
            }

            /// An element of `tags` (or a step) edited in place: no bump.
            fn edit_in_place(&mut self, rng: &mut Rng) -> Option<String> {
                if let $name::Task(x) = self {
                    if !x.steps.is_empty() && rng.chance(50) {
                        let i = rng.below(x.steps.len());
                        x.steps[i].what = s(rng);
                        return Some(format!("steps[{i}].what = {:?}", x.steps[i].what));
                    }
                }
                let tags = self.tags();
                if tags.is_empty() {
                    return None;
                }
                let i = rng.below(tags.len());
                tags[i] = s(rng);
                Some(format!("tags[{i}] = {:?}", tags[i]))
            }

            /// A change of kind (the whole document rewritten), or `tags`
            /// reversed.
            fn rewrite(&mut self, rng: &mut Rng) -> Option<String> {
                if rng.chance(60) {
                    return Some(self.change_kind(rng));
                }
                let tags = self.tags();
                tags.reverse();
                Some(format!("tags reversed: {tags:?}"))
            }
        }
    };
}

kinds_shape!(Kinds, "rand_kinds", "kinds", "random_kinds");
kinds_shape!(
    KindsOc,
    "rand_kinds_oc",
    "kinds_optimistic",
    "random_kinds_optimistic",
    optimistic_concurrency
);
